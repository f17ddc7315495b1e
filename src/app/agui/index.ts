export { aguiRoutes } from "./agui-routes.js";
export { AguiInputError, newUserMessages, RunAgentInputSchema, resumeInput } from "./input.js";
export {
  AGUI_PROTOCOL_VERSION,
  type AguiContentPart,
  type AguiEvent,
  type AguiEventType,
  type AguiInterrupt,
  type AguiRunOutcome,
  type AguiTokenUsage,
  aguiFrame,
} from "./protocol.js";
export {
  type AguiTranslation,
  CONFIRM_REASON,
  CONFIRM_RESPONSE_SCHEMA,
  EXTERNAL_REASON,
  EXTERNAL_RESPONSE_SCHEMA,
  finishAguiRun,
  interruptId,
  startAguiRun,
  translateEvent,
} from "./translate.js";
