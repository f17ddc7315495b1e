import type { GuardrailFinding } from "../agent/index.js";

/** One sign of a prompt injection: what it looks like and how much it weighs. */
export interface InjectionSign {
  name: string;
  pattern: RegExp;
  weight: number;
}

/**
 * Signs that text is talking to the model rather than to the reader: telling it to drop its
 * instructions, to take a new role, to hide things from the user, to run commands or send data
 * somewhere, or faking the chat template's role markers. Each alone may be innocent ("ignore the
 * previous section" in a README); the detector adds their weights.
 */
export const INJECTION_SIGNS: readonly InjectionSign[] = [
  {
    name: "override_instructions",
    pattern:
      /\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|all|any|your|system)\b[^.\n]{0,30}\b(?:instructions?|prompts?|rules|directions|guidelines|messages?)\b/gi,
    weight: 3,
  },
  {
    name: "new_instructions",
    pattern:
      /\b(?:new|updated|real|actual|important)\s+(?:instructions?|system\s+prompt|task)\s*(?:for\s+(?:the\s+)?(?:ai|assistant|agent|model))?\s*:/gi,
    weight: 2,
  },
  {
    name: "addresses_the_model",
    pattern:
      /\b(?:attention|note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?(?:ai|llm|assistant|agent|language model|chatbot)\b|\b(?:if you are|as) an? (?:ai|llm|language model|assistant|agent)\b|\byou are now\b|\bfrom now on,? you\b/gi,
    weight: 2,
  },
  {
    name: "role_markers",
    pattern:
      /<\|im_start\|>|<\|im_end\|>|<\|(?:system|assistant|user)\|>|\[\/?INST\]|<\/?(?:system|assistant)>|^\s*(?:system|assistant)\s*:/gim,
    weight: 3,
  },
  {
    name: "conceal_from_user",
    pattern:
      /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show)\b[^.\n]{0,30}\b(?:the\s+)?user\b|\bwithout (?:telling|informing|asking) the user\b/gi,
    weight: 3,
  },
  {
    name: "run_command",
    pattern:
      /\b(?:run|execute|call|invoke|use)\b[^.\n]{0,30}\b(?:command|shell|bash|terminal|tool)\b|\b(?:curl|wget)\s+\S+\s*\|\s*(?:ba|z)?sh\b|\brm\s+-rf\s+[/~]/gi,
    weight: 1,
  },
  {
    name: "exfiltrate",
    pattern:
      /\b(?:send|post|upload|forward|email|exfiltrate)\b[^.\n]{0,40}\b(?:api[_ ]?keys?|credentials?|secrets?|tokens?|passwords?|\.env|ssh keys?|environment variables)\b/gi,
    weight: 2,
  },
];

/** What the heuristics found: the total weight and the signs, with where they are. */
export interface InjectionScore {
  score: number;
  signs: Array<GuardrailFinding & { sign: string }>;
}

/** Weighs the signs in `text` (each sign counts once, however often it occurs). */
export function scoreInjection(
  text: string,
  signs: readonly InjectionSign[] = INJECTION_SIGNS,
): InjectionScore {
  const found: InjectionScore["signs"] = [];
  let score = 0;
  for (const sign of signs) {
    const re = new RegExp(
      sign.pattern.source,
      sign.pattern.flags.includes("g") ? sign.pattern.flags : `${sign.pattern.flags}g`,
    );
    const m = re.exec(text);
    if (m === null) continue;
    score += sign.weight;
    found.push({ kind: "prompt_injection", sign: sign.name, start: m.index, end: m.index + m[0].length });
  }
  return { score, signs: found };
}
