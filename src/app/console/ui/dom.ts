/// <reference lib="dom" />
/// <reference lib="dom.iterable" />

type Child = Node | string | false | null | undefined;

/**
 * Creates an element: `h("button", { class: "primary", type: "button", onclick }, "Send")`.
 * Attributes whose value is false/undefined are left out; `on*` functions become listeners.
 * Text children are text nodes (never parsed as HTML).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, unknown> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === false || value === null) continue;
    if (key.startsWith("on") && typeof value === "function")
      node.addEventListener(key.slice(2), value as EventListener);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children)
    if (child !== false && child !== null && child !== undefined) node.append(child);
  return node;
}

/** Pretty JSON when the text parses, else the text itself. */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The element with this id; throws when the page lacks it (a broken page should say so). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the console page has no #${id}`);
  return node as T;
}
