export { cardNetworkValid, ibanValid, luhnValid } from "./checksums.js";
export { type Detector, findAll, redact, regexDetector } from "./detector.js";
export {
  type InjectionGuardrailOptions,
  injectionGuardrail,
  piiGuardrail,
  type ScanGuardrailOptions,
  secretGuardrail,
} from "./guardrails.js";
export { INJECTION_SIGNS, type InjectionScore, type InjectionSign, scoreInjection } from "./injection.js";
export {
  type ModerationEndpoint,
  type ModerationGuardrailOptions,
  moderationGuardrail,
} from "./moderation.js";
export { cardDetector, emailDetector, ibanDetector, PII_DETECTORS, phoneDetector } from "./pii-detectors.js";
export { SECRET_DETECTORS } from "./secret-detectors.js";
