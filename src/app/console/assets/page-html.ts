/** The console's one page: a sessions sidebar and the chat; app.js does the rest. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>agentscope console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
<script type="module" src="/console/app.js"></script>
</head>
<body data-phase="idle">
<div class="layout">
  <aside class="sidebar">
    <div class="brand"><span class="logo" aria-hidden="true"></span>agentscope</div>
    <button id="new-chat" class="primary wide" type="button">New chat</button>
    <ul id="sessions" class="sessions" aria-label="Chats"></ul>
    <div class="sidebar-foot">
      <button id="settings-toggle" class="link" type="button">Access token</button>
      <form id="settings" class="settings" hidden>
        <label for="token">Bearer token (kept in this browser)</label>
        <input id="token" type="password" autocomplete="off" spellcheck="false">
        <button class="primary" type="submit">Save</button>
      </form>
    </div>
  </aside>
  <main class="main">
    <header class="topbar">
      <div class="heading"><h1 id="title">New chat</h1><span id="meta" class="meta"></span></div>
      <span id="conn" class="conn"></span>
    </header>
    <div id="notice" class="notice" role="alert" hidden></div>
    <section id="messages" class="messages" aria-live="polite"></section>
    <div id="empty" class="empty">
      <h2>Ask the agent something</h2>
      <p>Replies stream as they are written. Tool calls show their arguments and output, and calls that change something wait for your approval.</p>
    </div>
    <form id="composer" class="composer">
      <select id="agent" aria-label="Agent" hidden></select>
      <textarea id="input" rows="2" aria-label="Message"></textarea>
      <div class="composer-buttons">
        <button id="stop" class="danger" type="button" hidden>Stop</button>
        <button id="send" class="primary" type="submit">Send</button>
      </div>
    </form>
  </main>
</div>
</body>
</html>
`;
