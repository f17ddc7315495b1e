/**
 * How fast the built-in PII and secret scanners read text: `piiGuardrail()` (emails, phones, cards
 * with Luhn, IBANs with mod-97, credential formats) and `secretGuardrail()` each check a generated
 * 8 MB corpus of mixed prose, logs, JSON and code with a finding every ~2 KB, redacting what they
 * find. Prints MB/s by wall time and by CPU time (user + system of this process: steadier when other
 * work shares the machine); the issue-44 target is 50 MB/s.
 *
 *   node --import tsx bench/src/guardrail-scan.ts [runs=7] [megabytes=8]
 */
import { performance } from "node:perf_hooks";
import type { GuardrailCheck } from "../../src/agent/index.js";
import { piiGuardrail, secretGuardrail } from "../../src/guardrail/index.js";
import { fmt, median } from "./stats.js";

const runs = Number(process.argv[2] ?? 7);
const megabytes = Number(process.argv[3] ?? 8);

const PIECES = [
  "The quarterly report (version 2.4.1, dated 2024-01-15) lists 1,234 orders from 56 regions; revenue grew 12.5% to $4,500,000 while costs fell. See https://example.com/reports/q1?id=42 for details.\n",
  "2026-12-03T16:20:11.532Z INFO  request id=9f2c1a GET /v1/sessions/abc123/messages 200 in 14 ms (user 4821, 192.168.10.24)\n",
  '{"id": 48213, "name": "widget", "price": 19.99, "tags": ["blue", "large"], "updated": "2025-10-01T08:00:00Z"},\n',
  "export function total(items: Item[]): number {\n  return items.reduce((sum, item) => sum + item.price * item.count, 0);\n}\n",
  "Meeting notes: the team agreed to ship on Friday; Anna takes the release notes, Bo the migration guide.\n",
];
const FINDINGS = [
  "Contact jane.doe@example.com or call +1 (415) 555-2671.\n",
  "card 4111 1111 1111 1111 exp 12/29\n",
  "IBAN DE89 3704 0044 0532 0130 00\n",
  `GITHUB_TOKEN=ghp_${"A1b2C3d4E5".repeat(4)}\n`,
  "password: hunter2hunter2\n",
];

function corpus(size: number): string {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const piece = PIECES[i % PIECES.length] as string;
    parts.push(piece);
    length += piece.length;
    if (i % 12 === 11) {
      const finding = FINDINGS[((i / 12) % FINDINGS.length) | 0] as string;
      parts.push(finding);
      length += finding.length;
    }
  }
  return parts.join("");
}

const text = corpus(megabytes * 1_000_000);
const mb = Buffer.byteLength(text) / 1_000_000;
const check: GuardrailCheck = {
  stage: "tool_result",
  text,
  sessionId: "s",
  replyId: "r",
  signal: new AbortController().signal,
};

for (const [name, guardrail] of [
  ["pii", piiGuardrail()],
  ["secrets", secretGuardrail()],
] as const) {
  const wall: number[] = [];
  const cpu: number[] = [];
  let redacted = 0;
  for (let run = 0; run < runs + 2; run++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    const verdict = await guardrail.check(check);
    const ms = performance.now() - start;
    const used = process.cpuUsage(cpuStart);
    if (run < 2) continue; // warm-up
    wall.push(mb / (ms / 1000));
    cpu.push(mb / ((used.user + used.system) / 1e6));
    redacted = verdict.action === "rewrite" ? (verdict.findings?.length ?? 0) : 0;
  }
  console.log(
    `${name.padEnd(8)} ${fmt(mb)} MB, ${redacted} findings redacted: ${fmt(median(wall))} MB/s wall (min ${fmt(Math.min(...wall))}), ${fmt(median(cpu))} MB/s CPU`,
  );
}
