/** The CLI's help texts, one per command. */
export const HELP: Record<"main" | "init" | "chat" | "serve" | "demo" | "replay", string> = {
  main: `agentscope: run agents as a service or chat with them in the terminal

Usage: agentscope <command> [options]

Commands:
  init     write a small agent project (config, a custom tool, a test) into a folder
  chat     chat in the terminal with an agent from a config file or on a running server
  serve    start the agent service (HTTP + SSE under /v1, AG-UI, web console)
  demo     start the service with the demo agent on the embedded store
  replay   print a JSONL trace as chat showed it live (--open: its trace view)
  eval     run a dataset of cases against an agent and write the reports (agentscope eval --help)
  kb       local knowledge bases: add documents, search them (agentscope kb --help)
  mcp      serve the agents over MCP on stdio, for desktop hosts (agentscope mcp --help)
  audit    print a session's or a user's decision records as JSON Lines or CSV (agentscope audit --help)

Run "agentscope <command> --help" for a command's options.
`,
  init: `Usage: agentscope init [dir]

Write a small agent project into dir (default: the current folder; created if missing):
agentscope.config.ts (the agents serve and chat run), tools/local-time.ts (a custom tool),
model.ts (a real provider when a key is set, else an offline scripted model),
test/agent.test.ts (the agent on the scripted model), .env.example, tsconfig.json and
package.json. Existing files are never overwritten. Then: npm install && npm test.

Options:
  -h, --help        show this help
`,
  chat: `Usage: agentscope chat [--config file] [--agent name] | [--url http://host:port] [--token t] [--session id]

Chat in the terminal: streamed text, dimmed thinking, tool calls and results. When a tool asks,
answer y (yes), n (no) or a (always: remember the suggested rule). Ctrl-C interrupts the reply;
Ctrl-C at the prompt (or /exit, or end of input) quits. Lines can be piped on stdin.
/rewind [checkpoint] moves the session back (conversation, grants, workspace files; it says how to
undo it); /fork [checkpoint] goes on in a new session from there; without a checkpoint both list them.
In process checkpoints are on unless the config says "checkpoints": false (docs/time-travel.md).
As under serve, the session works in its own workspace and Bash runs in a bubblewrap sandbox
where it can (the config's "workspaces" decides; see docs/workspaces.md).

Options:
  --config <file>   agents config: .json, .js, or .ts (through tsx when the project has it, else
                    Node's type stripping where on); default agentscope.config.{ts,mjs,js,json}
  --agent <name>    which agent of the config (default: the first)
  --store <url>     keep the session in this store (default memory:)
  --url <url>       chat with a running server instead
  --token <token>   bearer token for --url (default AGENTSCOPE_TOKEN)
  --session <id>    continue this server session
  -h, --help        show this help
`,
  serve: `Usage: agentscope serve [--config file] [--port n] [--host addr] [--store url]

Start the agent service: JSON + SSE routes under /v1 (OpenAPI at /v1/openapi.json), the AG-UI
endpoint and the web console. Tokens come from the config's "tokens" or AGENTSCOPE_TOKENS
("token1:alice,token2:bob"); without tokens the server listens on 127.0.0.1 only.
Each session works in its own workspace; Bash runs in a bubblewrap sandbox where it can (else a
warning says so). The config's "workspaces" changes this (docs/workspaces.md).

Options:
  --config <file>   agents config: .json, .js, or .ts (through tsx when the project has it, else
                    Node's type stripping where on); default agentscope.config.{ts,mjs,js,json}
  --port <n>        port (default 8787; 0 = any free port)
  --host <addr>     address (default 127.0.0.1)
  --store <url>     sqlite:./path.db (default .agentscope/state.db), redis://..., postgres://...
  -h, --help        show this help
`,
  demo: `Usage: agentscope demo [--port n] [--model spec] [--workspace dir]

Start the service with the demo agent (list_files runs at once, save_note asks first) on the
embedded SQLite store, and print the web console's URL. Without --model the agent runs on a
scripted model.

Options:
  --port <n>          port (default 8787; 0 = any free port)
  --model <spec>      a model spec such as openai:gpt-4o-mini
  --workspace <dir>   where the sessions' workspaces live (default .agentscope/demo)
  --store <url>       default sqlite:.agentscope/state.db
  -h, --help          show this help
`,
  replay: `Usage: agentscope replay <file>
       agentscope replay --open <file> [--port <n>]

Print a JSONL trace (written by writeTrace or jsonlTraceMiddleware from agentscope/trace) as the
terminal chat showed it live. A bad line stops the replay with its line number.
With --open, serve the trace as the console studio's waterfall on 127.0.0.1 and open it in the
browser ($BROWSER when set; BROWSER=none only prints the address). Ctrl+C stops it.

Options:
  --open            show the trace view in a browser instead of printing
  --port <n>        the port for --open (default: any free port)
  -h, --help        show this help
`,
};
