import { MODEL_PROVIDERS } from "./model-spec.js";
import type { ModelProviderDefinition } from "./provider-kit/provider-definition.js";

/**
 * The model providers registered at run time (third-party ones, on the provider kit). Kept apart from
 * the built-in list (providers.ts) so a spec can be checked without loading any provider.
 */
const registered = new Map<string, ModelProviderDefinition>();

/**
 * Makes `modelFromSpec("<name>:<model>")` (and a spec string given to an Agent or the service config)
 * build `definition`'s model. A name that is already a provider's is an error naming it.
 */
export function registerModelProvider(definition: ModelProviderDefinition): void {
  if (!/^[a-z][a-z0-9-]*$/.test(definition.name))
    throw new Error(
      `model provider name ${JSON.stringify(definition.name)} must be lower-case letters, digits and -`,
    );
  if (MODEL_PROVIDERS.includes(definition.name) || registered.has(definition.name))
    throw new Error(`model provider "${definition.name}" is already registered`);
  registered.set(definition.name, definition);
}

/** Removes a registered provider (tests; a plugin that unloads). */
export function unregisterModelProvider(name: string): boolean {
  return registered.delete(name);
}

/** The registered provider of that name. */
export function registeredModelProvider(name: string): ModelProviderDefinition | undefined {
  return registered.get(name);
}

/** The registered providers, in registration order. */
export function registeredModelProviders(): ModelProviderDefinition[] {
  return [...registered.values()];
}

/** The built-in providers' names and the registered ones (for "known: ..." in errors). */
export function knownModelProviders(): string[] {
  return [...MODEL_PROVIDERS, ...registered.keys()];
}
