// Moved to state/service/ with the store families; app/ imports it from here.
export { newestEvent } from "../../../state/service/index.js";
