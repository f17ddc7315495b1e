import "../../react/dom.js";
import { afterAll, describe, expect, it } from "vitest";
import { type ApprovalDecision, approvalCard } from "../../../src/app/console/ui/approvals.js";
import type { PendingApproval } from "../../../src/client/index.js";
import { closePage } from "../../react/dom.js";

afterAll(closePage);

const call = (extra: Partial<PendingApproval> = {}): PendingApproval => ({
  type: "tool_call",
  id: "c1",
  name: "Bash",
  input: '{"command":"touch a"}',
  state: "asking",
  replyId: "r1",
  ...extra,
});

const buttons = (card: HTMLElement) => [...card.querySelectorAll("button")].map((b) => b.textContent);

describe("the console's approval card", () => {
  it("'Always allow' shows and sends exactly the ask's suggested rule", () => {
    const decisions: ApprovalDecision[] = [];
    const card = approvalCard(call({ suggestedRules: ["Bash(touch:*)"] }), (d) => decisions.push(d));
    const always = [...card.querySelectorAll("button")].find((b) => b.textContent?.startsWith("Always"))!;
    expect(always.textContent).toBe("Always allow Bash(touch:*)");
    always.click();
    expect(decisions).toEqual([{ toolCallId: "c1", confirmed: true, rules: ["Bash(touch:*)"] }]);
  });

  it("a safety ask (no suggested rule) offers no 'Always allow', never a blanket rule for the tool", () => {
    const decisions: ApprovalDecision[] = [];
    const card = approvalCard(call({ reason: "a person must confirm" }), (d) => decisions.push(d));
    expect(buttons(card)).toEqual(["Approve", "Deny"]);
    (card.querySelector("button.primary") as HTMLButtonElement).click();
    expect(decisions).toEqual([{ toolCallId: "c1", confirmed: true }]);
  });
});
