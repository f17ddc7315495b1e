import { type Detector, regexDetector } from "./detector.js";

/**
 * Credentials by their published formats. Each has a literal prefix, so a text without any of them
 * costs one `includes` per format.
 */
export const SECRET_DETECTORS: readonly Detector[] = [
  regexDetector("aws_access_key_id", /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g, {
    prefilter: ["AKIA", "ASIA", "AGPA", "AIDA", "AROA"],
  }),
  regexDetector("github_token", /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g, {
    prefilter: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
  }),
  regexDetector("gitlab_token", /\bglpat-[A-Za-z0-9_-]{20,}\b/g, { prefilter: ["glpat-"] }),
  regexDetector("slack_token", /\bxox[abposr]-[A-Za-z0-9-]{10,250}\b/g, { prefilter: ["xox"] }),
  regexDetector("stripe_key", /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}\b/g, {
    prefilter: ["_live_", "_test_"],
  }),
  regexDetector("anthropic_api_key", /\bsk-ant-[A-Za-z0-9_-]{20,}/g, { prefilter: ["sk-ant-"] }),
  regexDetector("openai_api_key", /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, {
    prefilter: ["sk-"],
  }),
  regexDetector("google_api_key", /\bAIza[0-9A-Za-z_-]{35}\b/g, { prefilter: ["AIza"] }),
  regexDetector("npm_token", /\bnpm_[A-Za-z0-9]{36}\b/g, { prefilter: ["npm_"] }),
  regexDetector("jwt", /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, {
    prefilter: ["eyJ"],
  }),
  regexDetector(
    "private_key",
    /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    { prefilter: ["PRIVATE KEY"] },
  ),
  // A value given to a key named like a credential, in config, env or JSON: the value is the secret
  // (placeholders such as ****, xxxx, <...>, ${VAR} are not).
  regexDetector(
    "credential_assignment",
    /\b(?:password|passwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)["']?[ \t]*[:=][ \t]*["']?((?![*x•<$])[^\s"'`,;]{8,})/gi,
    { group: 1 },
  ),
];
