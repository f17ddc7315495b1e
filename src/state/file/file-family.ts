import { JsonFileStateStore } from "../json-file-store.js";
import { localPath } from "../local-path.js";
import { type StoreFamily, splitStoreUrl } from "../store-family.js";

/** JSON files, one per session: agent state only. */
export const fileFamily: StoreFamily = {
  schemes: ["file"],
  example: "file:./dir",
  async openStore(url) {
    const { rest } = splitStoreUrl(url);
    if (!rest) throw new TypeError(`createStateStore: "${url}" names no directory (e.g. file:./sessions)`);
    return new JsonFileStateStore(localPath(rest));
  },
  noBackend:
    "JSON files keep agent state (createStateStore) but cannot back the service, which also needs an event log, run leases and a session directory",
};
