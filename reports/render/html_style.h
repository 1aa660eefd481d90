// The HTML report's stylesheet, inlined in the page: the system font stack, a max-width column
// that reads on a 1366 px laptop screen, tables that wrap instead of overflowing, scaling SVG.
#pragma once

namespace samebits {

inline constexpr const char* kHtmlStyle = R"css(
:root{--fg:#1c232b;--muted:#5a6572;--line:#dde2e7;--panel:#f5f7f9;
--bad:#a8201a;--bad-bg:#fde7e4;--warn:#8a5300;--warn-bg:#fff0d1;--find:#24509e;--find-bg:#e4ecfb;
--ok:#1d6e36;--ok-bg:#e2f3e7;--quiet:#57616c;--quiet-bg:#eceff2}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans",sans-serif}
main{max-width:1180px;margin:0 auto;padding:14px 20px 48px}
h1{font-size:21px;margin:6px 0 2px}
h2{font-size:17px;margin:26px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
h3{font-size:15px;margin:16px 0 6px}
h4{font-size:13.5px;margin:4px 0}
p{margin:6px 0}
a{color:#1f5fbf}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
font-size:12.5px}
code{overflow-wrap:anywhere}
pre{background:var(--panel);padding:8px 10px;border-radius:4px;white-space:pre-wrap;
overflow-wrap:anywhere;margin:6px 0}
.sub{color:var(--muted);font-size:13px}
.headline{margin:12px 0 4px;padding:10px 14px;border-radius:6px;font-size:15px;font-weight:600;
border-left:6px solid currentColor}
.headline .detail{display:block;font-weight:400;font-size:13.5px;color:var(--fg);margin-top:2px}
table{border-collapse:collapse;width:100%;margin:6px 0 12px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top;
overflow-wrap:anywhere}
th{font-weight:600;color:var(--muted);font-size:12.5px;background:var(--panel)}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;
overflow-wrap:normal}
td.z{color:#aab2bb}
td.id{min-width:10em;overflow-wrap:break-word}
td.what{font-size:13px}
.scroll{overflow-x:auto}
.pill{display:inline-block;padding:0 7px;border-radius:9px;font-size:12px;font-weight:600;
white-space:nowrap}
.o-bad{color:var(--bad);background:var(--bad-bg)}
.o-warn{color:var(--warn);background:var(--warn-bg)}
.o-find{color:var(--find);background:var(--find-bg)}
.o-ok{color:var(--ok);background:var(--ok-bg)}
.o-quiet{color:var(--quiet);background:var(--quiet-bg)}
td.o-bad,td.o-warn,td.o-find,td.o-ok{font-weight:600}
details{border:1px solid var(--line);border-radius:6px;margin:8px 0;background:#fff}
details>summary{cursor:pointer;padding:6px 10px;font-weight:600}
details[open]>summary{border-bottom:1px solid var(--line);background:var(--panel)}
details>.body{padding:8px 12px}
details.case{margin:6px 0}
details.case>summary{font-weight:400}
summary .pill{margin-left:6px}
.kv{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 16px;margin:4px 0}
.kv>.k{color:var(--muted)}
.kv .kv{margin:0}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:12px}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 12px}
.card h3{margin-top:2px}
.figs{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));grid-auto-flow:dense;
gap:14px;margin:8px 0}
figure{margin:0;min-width:0}
figure.wide{grid-column:1/-1}
figcaption{font-size:12px;color:var(--muted);margin-top:2px}
svg.hm{display:block;max-width:100%;height:auto}
svg.hm text{font-size:11px;fill:#34404c}
svg.hm text.ax{font-weight:600;fill:var(--muted)}
svg.hm text.v{font-size:10px;pointer-events:none}
svg.hm text.dk{fill:#fff}
svg.hm rect.c{stroke:#fff;stroke-width:1}
svg.hm rect.nr{stroke:#b3bbc4;stroke-width:1;stroke-dasharray:2 2}
svg.hm line.tk{stroke:#8a949e}
.legend{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center;font-size:12px;
color:var(--muted);margin:6px 0}
.legend .lt{font-weight:600}
.sw{display:inline-block;width:14px;height:12px;border:1px solid #c3cad2;margin-right:4px;
vertical-align:-2px}
.sw.dashed{border-style:dashed}
.muted{color:var(--muted)}
ul.tight{margin:4px 0;padding-left:20px}
nav.toc{font-size:13px;margin:6px 0}
nav.toc a{margin-right:12px}
)css";

}  // namespace samebits
