// The viewer's one page. Its script and style are separate files of the same origin, so the
// Content-Security-Policy can forbid every inline script.
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Yoke run viewer</title>
<link rel="stylesheet" href="/viewer.css">
<script src="/viewer.js" defer></script>
</head>
<body>
<header class="top"><a class="brand" href="#/">Yoke runs</a><span id="crumb" class="crumb"></span><span class="readonly">read-only · 127.0.0.1</span></header>
<main id="app"><p class="muted">Loading…</p></main>
<noscript>The run viewer needs JavaScript (its own file, served by this viewer; nothing else is loaded).</noscript>
</body>
</html>
`;
