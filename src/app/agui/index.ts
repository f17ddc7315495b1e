export { aguiRoutes } from "./agui-routes.js";
export { AguiInputError, newUserMessages, RunAgentInputSchema, resumeInput } from "./input.js";
export * from "./protocol.js";
export * from "./translate.js";
