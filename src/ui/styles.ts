// One stylesheet, adopted by the shadow root: nothing leaks out, the page's CSS does not
// leak in, and a Content-Security-Policy without 'unsafe-inline' styles still allows it.
export const css = `
:host{all:initial}
.bd{position:fixed;inset:0;z-index:2147483647;display:flex;align-items:center;justify-content:center;background:rgba(16,18,24,.6);font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#16181d}
.dl{position:relative;box-sizing:border-box;width:min(400px,100%);max-height:100%;overflow:auto;padding:20px;background:#fff;border-radius:14px;box-shadow:0 12px 40px rgba(0,0,0,.35)}
@media(max-width:480px){.dl{width:100%;height:100%;border-radius:0}}
@media(prefers-reduced-motion:no-preference){.dl{animation:in .16s ease-out}@keyframes in{from{opacity:0;transform:translateY(10px)}}}
header{padding-right:40px}
h2{margin:0;font-size:17px}
h3{margin:14px 0 8px;font-size:16px}
p{margin:8px 0}
.tot{margin:2px 0 0;color:#4a4f59}
.rb{display:inline-block;margin:0 0 8px;padding:2px 8px;border-radius:6px;background:#ffd33d;font-size:12px;font-weight:700;text-transform:uppercase}
button{min-height:36px;padding:6px 12px;border:1px solid #b9bdc6;border-radius:8px;background:#fff;color:inherit;font:inherit;cursor:pointer}
button:hover{background:#f2f4f8}
:focus-visible{outline:3px solid #2547d0;outline-offset:2px}
.x{position:absolute;top:12px;right:12px;width:36px;padding:0;border:0;font-size:24px;line-height:1}
.pr{width:100%;min-height:44px;margin-top:14px;border-color:#2547d0;background:#2547d0;color:#fff;font-weight:600}
.pr:hover{background:#1b3aae}
.ln{border:0;padding:6px 0;background:none;color:#2547d0;text-decoration:underline}
label{display:block;margin-top:12px;font-weight:600}
input{display:block;box-sizing:border-box;width:100%;margin-top:4px;padding:9px 10px;border:1px solid #767b86;border-radius:8px;font:inherit}
input[aria-invalid=true]{border-color:#b3261e}
.er{margin:4px 0 0;color:#b3261e;font-size:14px}
ul{display:grid;gap:8px;margin:0;padding:0;list-style:none}
.cn{display:flex;width:100%;gap:8px;align-items:baseline;text-align:left}
small,.lb,dt{color:#4a4f59}
.lb{margin:14px 0 4px;font-size:14px}
.row{display:flex;flex-wrap:wrap;gap:8px;align-items:center}
.amt{font-size:22px;font-weight:700}
.ad{padding:8px;border-radius:8px;background:#f2f4f8}
code{font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
svg{display:block;width:196px;height:196px;margin:12px auto}
dl{display:grid;grid-template-columns:auto 1fr;gap:2px 12px;margin:12px 0;font-size:14px}
dd{margin:0}
.nt{padding:8px 10px;border-radius:8px;background:#fff4e0}
.ok{color:#146c2e}
.sb{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-top:14px;padding:8px;border:1px dashed #9a6b00;border-radius:8px;font-size:14px}
`.replace(/\n/g, '');
