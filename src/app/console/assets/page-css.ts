/** The console's styles: system font, light and dark from prefers-color-scheme. */
export const PAGE_CSS = `
:root {
  --bg: #f7f7f8;
  --panel: #ffffff;
  --sidebar: #f0f0f2;
  --text: #1d1d1f;
  --muted: #6b6b73;
  --border: #dedee3;
  --accent: #3457d5;
  --accent-text: #ffffff;
  --accent-soft: #e8edfc;
  --danger: #c62f2f;
  --danger-soft: #fdecec;
  --ok: #1f8a4c;
  --warn: #a86200;
  --warn-soft: #fff4e0;
  --code: #f1f1f4;
  --user: #e8edfc;
  --shadow: 0 1px 2px rgba(0, 0, 0, 0.06);
  --radius: 10px;
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #161618;
    --panel: #1e1e21;
    --sidebar: #131315;
    --text: #ececf0;
    --muted: #9a9aa5;
    --border: #2f2f35;
    --accent: #6f8cff;
    --accent-text: #0d0d10;
    --accent-soft: #232a45;
    --danger: #ff6b6b;
    --danger-soft: #3a1f22;
    --ok: #4cc47f;
    --warn: #f0a640;
    --warn-soft: #352a17;
    --code: #26262b;
    --user: #262c44;
    --shadow: none;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html, body { height: 100%; margin: 0; }
body {
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  background: var(--bg);
  color: var(--text);
}
button, input, textarea, select { font: inherit; color: inherit; }
button {
  border: 1px solid var(--border);
  background: var(--panel);
  border-radius: 8px;
  padding: 6px 12px;
  cursor: pointer;
}
button:hover { border-color: var(--muted); }
button:disabled { opacity: 0.5; cursor: default; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); font-weight: 600; }
button.danger { color: var(--danger); border-color: var(--danger); background: transparent; }
button.link { border: none; background: none; color: var(--muted); padding: 4px 0; }
button.wide { width: 100%; }
:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }

.layout { display: grid; grid-template-columns: 270px 1fr; height: 100vh; }
.sidebar {
  background: var(--sidebar);
  border-right: 1px solid var(--border);
  display: flex;
  flex-direction: column;
  padding: 14px;
  gap: 12px;
  min-height: 0;
}
.brand { font-weight: 700; font-size: 17px; display: flex; align-items: center; gap: 8px; letter-spacing: -0.01em; }
.logo { width: 18px; height: 18px; border-radius: 5px; background: linear-gradient(135deg, var(--accent), var(--ok)); }
.sessions { list-style: none; margin: 0; padding: 0; overflow-y: auto; flex: 1; display: flex; flex-direction: column; gap: 2px; }
.session { display: flex; align-items: stretch; border-radius: 8px; }
.session:hover, .session.current { background: var(--panel); box-shadow: var(--shadow); }
.session.current { outline: 1px solid var(--border); }
.session-pick {
  flex: 1;
  min-width: 0;
  border: none;
  background: none;
  text-align: left;
  display: flex;
  flex-direction: column;
  padding: 7px 10px;
}
.session-title { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.session-date { font-size: 12px; color: var(--muted); }
.session-delete { border: none; background: none; color: var(--muted); padding: 0 10px; visibility: hidden; }
.session:hover .session-delete, .session-delete[data-armed="1"] { visibility: visible; }
.session-delete[data-armed="1"] { color: var(--danger); font-size: 12px; }
.sidebar-foot { border-top: 1px solid var(--border); padding-top: 8px; }
.settings { display: flex; flex-direction: column; gap: 6px; margin-top: 6px; font-size: 13px; color: var(--muted); }
.settings input { padding: 6px 8px; border: 1px solid var(--border); border-radius: 8px; background: var(--panel); }

.main { display: flex; flex-direction: column; min-width: 0; min-height: 0; position: relative; }
.topbar {
  display: flex;
  justify-content: space-between;
  align-items: center;
  padding: 12px 24px;
  border-bottom: 1px solid var(--border);
  background: var(--panel);
}
.heading { display: flex; align-items: baseline; gap: 10px; min-width: 0; }
h1 { font-size: 16px; margin: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.meta, .conn { font-size: 12px; color: var(--muted); }
.conn[data-state="live"]::before { content: "●"; color: var(--ok); margin-right: 4px; }
.notice { margin: 10px 24px 0; padding: 8px 12px; border-radius: 8px; background: var(--danger-soft); color: var(--danger); }
.notice[data-kind="info"] { background: var(--warn-soft); color: var(--warn); }

.messages { flex: 1; overflow-y: auto; padding: 20px 24px 8px; display: flex; flex-direction: column; gap: 14px; }
.empty { position: absolute; top: 38%; left: 0; right: 0; text-align: center; color: var(--muted); pointer-events: none; padding: 0 20%; }
.empty h2 { color: var(--text); font-size: 20px; margin: 0 0 6px; }
.msg { max-width: 860px; width: 100%; margin: 0 auto; display: flex; flex-direction: column; gap: 6px; }
.msg.user { align-items: flex-end; }
.msg.user .msg-body { background: var(--user); padding: 8px 14px; border-radius: 14px 14px 4px 14px; max-width: 80%; }
.msg-body { display: flex; flex-direction: column; gap: 8px; min-width: 0; }
.text .para { white-space: pre-wrap; overflow-wrap: anywhere; }
pre { margin: 0; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.code { background: var(--code); padding: 10px 12px; border-radius: 8px; margin: 6px 0; }
.media { max-width: 360px; max-height: 280px; border-radius: 8px; border: 1px solid var(--border); }
.attachment { color: var(--accent); }

.thinking { border-left: 3px solid var(--border); padding-left: 10px; color: var(--muted); }
.thinking summary { cursor: pointer; font-size: 13px; user-select: none; }
.thinking-body { white-space: pre-wrap; font-size: 14px; margin-top: 4px; }
.thinking[open] summary { margin-bottom: 2px; }

.tool { border: 1px solid var(--border); border-radius: var(--radius); background: var(--panel); box-shadow: var(--shadow); overflow: hidden; }
.tool-head { display: flex; align-items: center; justify-content: space-between; padding: 7px 12px; gap: 10px; }
.tool-name { font: 600 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.tool-name::before { content: "⚙"; margin-right: 6px; color: var(--muted); font-weight: 400; }
.badge { font-size: 12px; padding: 1px 8px; border-radius: 99px; background: var(--code); color: var(--muted); }
.tool[data-state="asking"] { border-color: var(--warn); }
.tool[data-state="asking"] .badge { background: var(--warn-soft); color: var(--warn); }
.tool[data-state="running"] .badge, .tool[data-state="allowed"] .badge { background: var(--accent-soft); color: var(--accent); }
.tool[data-state="success"] .badge { color: var(--ok); }
.tool[data-state="error"] .badge, .tool[data-state="denied"] .badge { background: var(--danger-soft); color: var(--danger); }
.tool-args { padding: 0 12px 8px; font-size: 13px; }
.tool-args summary { cursor: pointer; color: var(--muted); font-size: 12px; user-select: none; }
.tool-args-body { white-space: pre-wrap; font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 8px 10px; border-radius: 6px; margin-top: 4px; }
.tool-output { border-top: 1px solid var(--border); padding: 8px 12px; max-height: 320px; overflow: auto; }
.tool-output:empty { display: none; }
.tool-media { padding: 0 12px; }
.tool-media:empty { display: none; }
.tool-ask { border-top: 1px solid var(--border); background: var(--warn-soft); padding: 10px 12px; display: flex; flex-direction: column; gap: 8px; }
.tool-ask[hidden] { display: none; }
.ask-reason { font-size: 13px; }
.ask-buttons { display: flex; gap: 8px; flex-wrap: wrap; }
.ask-pending { font-size: 13px; color: var(--warn); }

.msg-foot { display: flex; flex-direction: column; gap: 4px; font-size: 13px; }
.msg-foot:empty { display: none; }
.error { color: var(--danger); background: var(--danger-soft); padding: 6px 10px; border-radius: 8px; }
.note { color: var(--muted); }
.usage { color: var(--muted); font-size: 12px; }
.working { color: var(--muted); }
.working::after { content: ""; display: inline-block; width: 1.2em; text-align: left; animation: dots 1.2s steps(4, end) infinite; }
@keyframes dots { 0% { content: ""; } 25% { content: "."; } 50% { content: ".."; } 75% { content: "..."; } }

.composer {
  display: flex;
  gap: 10px;
  align-items: flex-end;
  padding: 12px 24px 18px;
  max-width: 908px;
  width: 100%;
  margin: 0 auto;
}
.composer textarea {
  flex: 1;
  resize: none;
  border: 1px solid var(--border);
  border-radius: 12px;
  padding: 10px 12px;
  background: var(--panel);
  min-height: 46px;
  max-height: 200px;
  box-shadow: var(--shadow);
}
.composer select { border: 1px solid var(--border); border-radius: 8px; padding: 8px; background: var(--panel); }
.composer-buttons { display: flex; gap: 8px; }

@media (max-width: 720px) {
  .layout { grid-template-columns: 1fr; }
  .sidebar { display: none; }
}
`;
