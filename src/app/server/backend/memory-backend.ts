// Moved to state/memory/ with the memory store; app/ imports it from here.
export { MemoryRunLocks, memoryBackend } from "../../../state/memory/memory-backend.js";
