import { parseArgs } from "node:util";
import { CliError } from "./cli-error.js";

export const AUDIT_HELP = `Usage: agentscope audit <session> [--format jsonl|csv] [--url http://host:port] [--token t]
       agentscope audit --user <name> [--from time] [--to time] [--format jsonl|csv] [--url ...] [--token t]

Prints the decision records (who asked, approved, denied, edited or let expire which tool call,
under which rule or policy, through which channel) of one session, or of a user's sessions in a
period, from a running service's audit export (GET /v1/decisions), oldest first: JSON Lines (one
record per line, the default) or CSV with a header row. Another user's records need the admin
role (AGENTSCOPE_TOKENS=token:you:admin).

Options:
  --user <name>        whose sessions (default: the token's user)
  --from <time>        records at or after this time (ISO 8601)
  --to <time>          records before this time (ISO 8601)
  --format <format>    jsonl (default) or csv
  --url <url>          the service (default http://127.0.0.1:3000, or AGENTSCOPE_URL)
  --token <token>      bearer token (default AGENTSCOPE_TOKEN)
`;

interface Writable {
  write(text: string): unknown;
}

/** `agentscope audit`: writes the service's audit export to `out`. */
export async function auditCommand(
  args: string[],
  io: { out: Writable; env?: NodeJS.ProcessEnv; fetch?: typeof fetch },
): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      format: { type: "string" },
      url: { type: "string" },
      token: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return void io.out.write(AUDIT_HELP);
  const env = io.env ?? process.env;
  const [session, ...extra] = positionals;
  if (extra.length > 0) throw new CliError(`audit: one session at most (got ${positionals.join(" ")})`);
  if (!session && !values.user)
    throw new CliError("audit: name a session or --user", "e.g. agentscope audit --user alice --format csv");
  const format = values.format ?? "jsonl";
  if (format !== "jsonl" && format !== "csv") throw new CliError(`audit: --format ${format}: jsonl or csv`);
  const base = (values.url ?? env.AGENTSCOPE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const query = new URLSearchParams({ format });
  if (session) query.set("session", session);
  for (const key of ["user", "from", "to"] as const) if (values[key]) query.set(key, values[key]!);
  const token = values.token ?? env.AGENTSCOPE_TOKEN;
  const response = await (io.fetch ?? fetch)(`${base}/v1/decisions?${query}`, {
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "agentscope-channel": "cli" },
  }).catch((error: Error) => {
    throw new CliError(
      `audit: cannot reach ${base}: ${error.message}`,
      "is the service running? (agentscope serve)",
    );
  });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;
    } catch {}
    throw new CliError(`audit: ${response.status}: ${message}`);
  }
  io.out.write(text);
}
