import type { Studio, StudioHost } from "./studio/studio.js";

/** Where the studio's bundle is served: a separate file, fetched the first time the studio opens. */
const STUDIO_URL = "/console/studio.js";

type StudioModule = { mountStudio(target: HTMLElement, host: StudioHost): Studio };

/**
 * The Studio button of the chat page: opens and closes the studio drawer, loading its code on the
 * first open (the chat bundle holds only this loader). `refresh` redraws it when it is open.
 */
export function studioLoader(
  panel: HTMLElement,
  toggle: HTMLElement,
  host: StudioHost,
  failed: (error: unknown) => void,
) {
  let studio: Promise<Studio> | undefined;
  const body = panel.querySelector<HTMLElement>(".studio-mount") ?? panel;
  const load = () => {
    studio ??= (import(STUDIO_URL) as Promise<StudioModule>).then((module) => module.mountStudio(body, host));
    studio.catch(() => {
      studio = undefined;
    });
    return studio;
  };
  const setOpen = (open: boolean) => {
    panel.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    if (open) void load().then((s) => s.refresh(), failed);
    else toggle.focus();
  };
  toggle.addEventListener("click", () => setOpen(panel.hidden));
  panel.querySelector(".studio-close")?.addEventListener("click", () => setOpen(false));
  return {
    refresh(): void {
      if (!panel.hidden && studio) void studio.then((s) => s.refresh());
    },
  };
}
