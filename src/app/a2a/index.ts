export { a2aRoutes } from "./a2a-routes.js";
export { A2A_VERSIONS, agentCardOf } from "./agent-card.js";
export { ServiceAgentExecutor, sessionOfContext } from "./service-executor.js";
export {
  agentMessage,
  dataOfParts,
  dataPart,
  describeWaiting,
  EVENT_METADATA_KEY,
  newTask,
  statusOf,
  textOfParts,
  textPart,
} from "./task-events.js";
