import { MissingDriverError } from "./store-errors.js";

/**
 * Imports an optional database driver on first use, so importing agentscope never loads it. A driver
 * that is not installed becomes a MissingDriverError saying which package to install.
 */
export async function importDriver<T>(
  load: () => Promise<T>,
  packageName: string,
  store: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    const message = (error as Error).message ?? "";
    if ((code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && message.includes(packageName)) {
      throw new MissingDriverError(store, packageName, { cause: error });
    }
    throw error;
  }
}
