// Moved to state/service/ with the store families; app/ imports it from here.
export { FencedError, isFenced } from "../../../state/service/index.js";
