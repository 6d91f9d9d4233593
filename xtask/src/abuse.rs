//! `cargo xtask abuse [--debug]`: B3 of the test plan — hostile text in every field of the site's
//! most used pages. The server (release unless `--debug`) runs on a fresh SQLite database of 2,000
//! cars; a signed-in buyer fetches twenty pages (home, the list, a car and its lead forms,
//! sign-in, the service hall's valuation, reports, insurance and loans, the ad landings, selling,
//! the buyer's own pages, a shop, news), reads every form on them (GET and POST, not the photo
//! uploads, which have their own tests) and the list's filter parameters, and then sends each
//! field, one at a time with the others as the page filled them, every payload of Debian wfuzz's
//! SQL, XSS and traversal lists and of the Big List of Naughty Strings (`xtask/data/blns.txt`, MIT
//! licence, Max Woolf). wrk sends them (one connection per thread, each request once, from an
//! address of its own so the per-address limits do not hide a field); its script checks every
//! answer: no 5xx, and no payload with markup or quotes in it shown back unescaped. Prints the
//! counts and the findings and writes `target/stress/abuse.json`.
//!
//! Then sqlmap (Debian's) at level 2 on five GET routes — the list's filters, its keyword search,
//! a car's page (the id in the path), the valuation and the insurance quotes — each bounded to
//! [`SQLMAP_SECS`]: it must find no injection point and meet no 5xx (`target/stress/sqlmap/`).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::stress::{Db, cookie_header, prepare, start, write_json};
use crate::{Res, free_port};

/// Debian wfuzz's injection lists.
const WFUZZ: &str = "/usr/share/wfuzz/wordlist/Injections";

/// One form as a page offers it: where and how it goes, and its fields with the values the page
/// gave them.
#[derive(Debug, Clone)]
struct Form {
    method: String,
    action: String,
    fields: Vec<(String, String)>,
}

/// The value of `name="…"` in a tag's text, HTML entities of `&` and quotes undone.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let end = tag[start..].find('"')? + start;
    Some(tag[start..end].replace("&amp;", "&").replace("&#34;", "\"").replace("&quot;", "\"").replace("&#39;", "'"))
}

/// Every form of `html` that posts or gets to this site without a file (`page` is where an empty
/// action goes).
fn forms(html: &str, page: &str) -> Vec<Form> {
    let mut out = Vec::new();
    for chunk in html.split("<form").skip(1) {
        let Some(head_end) = chunk.find('>') else { continue };
        let head = &chunk[..head_end];
        let body = &chunk[head_end..chunk.find("</form>").unwrap_or(chunk.len())];
        if head.contains("multipart/form-data") {
            continue;
        }
        let action = attribute(head, "action").filter(|a| !a.is_empty()).unwrap_or_else(|| page.to_owned());
        let action = action.split('#').next().unwrap_or_default().to_owned();
        if !action.starts_with('/') || action.starts_with("//") || action.contains("logout") {
            continue;
        }
        let method = attribute(head, "method").unwrap_or_default().to_ascii_uppercase();
        let method = if method == "POST" { "POST" } else { "GET" }.to_owned();
        let mut fields: Vec<(String, String)> = Vec::new();
        for tag_name in ["<input", "<select", "<textarea", "<button"] {
            for piece in body.split(tag_name).skip(1) {
                let tag = &piece[..piece.find('>').unwrap_or(piece.len())];
                let Some(name) = attribute(tag, "name") else { continue };
                if fields.iter().any(|(n, _)| *n == name) {
                    continue;
                }
                let value = if tag_name == "<select" {
                    piece.split("<option").nth(1).and_then(|o| attribute(o, "value")).unwrap_or_default()
                } else {
                    attribute(tag, "value").unwrap_or_default()
                };
                fields.push((name, value));
            }
        }
        if !fields.is_empty() {
            out.push(Form { method, action, fields });
        }
    }
    out
}

/// The names of the parameters in the page's links to `path?…` (the list's filters).
fn link_parameters(html: &str, path: &str) -> BTreeSet<String> {
    let key = format!("href=\"{path}?");
    html.match_indices(&key)
        .filter_map(|(at, _)| {
            let rest = &html[at + key.len()..];
            rest.find('"').map(|end| rest[..end].replace("&amp;", "&"))
        })
        .flat_map(|query| form_urlencoded::parse(query.as_bytes()).map(|(k, _)| k.into_owned()).collect::<Vec<_>>())
        .collect()
}

/// The payloads: wfuzz's SQL, XSS and traversal lists and the naughty strings (comments and
/// blank lines left out), each once.
fn payloads() -> Result<Vec<String>, String> {
    let mut all = Vec::new();
    for file in ["SQL.txt", "XSS.txt", "Traversal.txt"] {
        let text = std::fs::read(Path::new(WFUZZ).join(file)).map_err(|e| format!("{WFUZZ}/{file}: {e}"))?;
        all.extend(String::from_utf8_lossy(&text).lines().map(str::to_owned));
    }
    let blns = std::fs::read_to_string(crate::root().join("xtask/data/blns.txt")).map_err(|e| format!("xtask/data/blns.txt: {e}"))?;
    all.extend(blns.lines().filter(|l| !l.starts_with('#')).map(str::to_owned));
    let mut seen = BTreeSet::new();
    Ok(all.into_iter().filter(|p| !p.trim().is_empty() && seen.insert(p.clone())).collect())
}

/// wrk's script: each thread sends its share of `requests` (method, target, body and payload
/// number, tab-separated) once, then stops; an answer of 500 or more, or one showing a risky
/// payload as it was sent, goes to `findings`.
fn script(requests: &Path, payloads: &Path, findings: &Path, cookie: &str) -> String {
    format!(
        r##"
threads = {{}}
setup = function(thread)
  thread:set("id", #threads + 1)
  table.insert(threads, thread)
end
local function unhex(s) return (s:gsub("..", function(h) return string.char(tonumber(h, 16)) end)) end
init = function(args)
  mine, payload, found, sent, answered = {{}}, {{}}, {{}}, 0, 0
  local i = 0
  for line in io.lines({requests:?}) do
    if i % #threads_of + 1 == id then table.insert(mine, line) end
    i = i + 1
  end
  for line in io.lines({payloads:?}) do table.insert(payload, unhex(line)) end
end
request = function()
  sent = sent + 1
  local line = mine[math.min(sent, #mine)]
  local method, target, body, p = line:match("^(%u+)\t([^\t]*)\t([^\t]*)\t(%d+)$")
  current = {{ method = method, target = target, p = tonumber(p) }}
  local headers = {{ ["Cookie"] = {cookie:?}, ["X-Forwarded-For"] = string.format("10.%d.%d.%d", id, math.floor(sent / 250) % 250, sent % 250 + 1) }}
  if method == "POST" then
    headers["Content-Type"] = "application/x-www-form-urlencoded"
    return wrk.format("POST", target, headers, body)
  end
  return wrk.format("GET", target, headers)
end
response = function(status, headers, body)
  answered = answered + 1
  local p = payload[current.p]
  local risky = p and #p >= 4 and p:find("[<>\"']")
  if status >= 500 then
    table.insert(found, status .. "\t5xx\t" .. current.method .. "\t" .. current.target .. "\t" .. current.p)
  elseif risky and body and body:find(p, 1, true) then
    table.insert(found, status .. "\treflected\t" .. current.method .. "\t" .. current.target .. "\t" .. current.p)
  end
  if answered >= #mine then
    local marker = io.open({findings:?} .. ".done" .. id, "w")
    marker:close()
    wrk.thread:stop()
  end
end
done = function(summary, latency, requests)
  local f = io.open({findings:?}, "w")
  for _, t in ipairs(threads) do
    f:write("#answered\t", t:get("answered"), "\t", #t:get("mine"), "\n")
    for _, line in ipairs(t:get("found")) do f:write(line, "\n") end
  end
  f:close()
end
"##,
        requests = requests.display().to_string(),
        payloads = payloads.display().to_string(),
        findings = findings.display().to_string(),
    )
    .replace("#threads_of", &THREADS.to_string())
}

/// A text every page begins with: sent as a payload, its finding shows the check works.
const CONTROL: &str = "<!doctype html>";

/// wrk's threads, one connection each.
const THREADS: usize = 2;

/// The pages whose forms are filled: the site's most used.
fn pages(db: &Db) -> Result<Vec<String>, String> {
    let car = db.query("select listing_id from listing where status = 'online' order by listing_id limit 1")?;
    let shop = db.query("select oname from shop order by shop_id limit 1")?;
    let mut pages: Vec<String> = [
        "/",
        "/carlist",
        "/sys/login",
        "/servicehall",
        "/servicehall/pinggu",
        "/servicehall/fourquery",
        "/servicehall/insurance",
        "/servicehall/fenqi/fenqi",
        "/servicehall/gather",
        "/servicehall/checkreport",
        "/actives/flow",
        "/actives/douyinflow",
        "/actives/pcflow",
        "/actives/sellserve",
        "/space/carfindwa",
        "/space/searches",
        "/vip",
        "/news",
    ]
    .map(str::to_owned)
    .to_vec();
    pages.push(format!("/details/{}", car.trim()));
    pages.push(format!("/space/messages/ask/{}", car.trim()));
    pages.push(format!("/shop/{}", shop.trim()));
    Ok(pages)
}

pub fn abuse(args: &[String]) -> Res {
    crate::bench::ensure_program(&format!("{WFUZZ}/SQL.txt"), "wfuzz")?;
    let (bin, dir, db) = prepare(args, "abuse.db", 2_000)?;
    let addr = format!("127.0.0.1:{}", free_port()?);
    let base = format!("http://{addr}");
    let (server, _) = start(&bin, &addr, &db)?;
    let jar = dir.join("abuse-cookies.txt");
    let jar_args = crate::faults::sign_in(&base, &jar, "13700000099")?;
    let cookie = cookie_header(&jar)?;
    // The forms and the list's parameters, as the signed-in buyer sees them.
    // The forms and the list's parameters as the signed-in buyer and a visitor see them; a form
    // repeated with other values (a 收藏 button per car) counts once.
    let mut all: Vec<Form> = Vec::new();
    let mut shapes = BTreeSet::new();
    for page in pages(&db)? {
        for signed_in in [true, false] {
            let mut curl = Command::new("curl");
            curl.args(["-s", "--max-time", "20"]);
            if signed_in {
                curl.args(&jar_args);
            }
            let out = curl.arg(format!("{base}{page}")).output().map_err(|e| e.to_string())?;
            let html = String::from_utf8_lossy(&out.stdout);
            let mut found = forms(&html, &page);
            if page == "/carlist" {
                let names = link_parameters(&html, "/carlist");
                found.push(Form { method: "GET".to_owned(), action: "/carlist".to_owned(), fields: names.into_iter().map(|n| (n, String::new())).collect() });
            }
            for form in found {
                let shape = (form.method.clone(), form.action.clone(), form.fields.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>());
                if shapes.insert(shape) {
                    all.push(form);
                }
            }
        }
    }
    let mut payloads = payloads()?;
    // The control: every page begins with this text, so the check must report it on the home
    // page, or it is not checking.
    payloads.push(CONTROL.to_owned());
    let control = payloads.len();
    let (requests_file, payloads_file, findings_file) = (dir.join("abuse-requests.txt"), dir.join("abuse-payloads.txt"), dir.join("abuse-findings.txt"));
    std::fs::write(&payloads_file, payloads.iter().map(|p| p.bytes().map(|b| format!("{b:02x}")).collect::<String>()).collect::<Vec<_>>().join("\n") + "\n")
        .map_err(|e| e.to_string())?;
    let mut lines = Vec::new();
    let mut fields = 0;
    for form in &all {
        for (i, _) in form.fields.iter().enumerate() {
            fields += 1;
            for (p, payload) in payloads.iter().enumerate() {
                let mut query = form_urlencoded::Serializer::new(String::new());
                for (j, (name, value)) in form.fields.iter().enumerate() {
                    query.append_pair(name, if i == j { payload } else { value });
                }
                let query = query.finish();
                lines.push(match form.method.as_str() {
                    "POST" => format!("POST\t{}\t{query}\t{}", form.action, p + 1),
                    _ => format!("GET\t{}{}{query}\t\t{}", form.action, if form.action.contains('?') { '&' } else { '?' }, p + 1),
                });
            }
        }
    }
    lines.push(format!("GET\t/?utm_source=abuse\t\t{control}"));
    std::fs::write(&requests_file, lines.join("\n") + "\n").map_err(|e| e.to_string())?;
    let script_file = dir.join("abuse.lua");
    std::fs::write(&script_file, script(&requests_file, &payloads_file, &findings_file, &cookie)).map_err(|e| e.to_string())?;
    let markers: Vec<_> = (1..=THREADS).map(|t| dir.join(format!("abuse-findings.txt.done{t}"))).collect();
    for file in markers.iter().chain([&findings_file]) {
        let _ = std::fs::remove_file(file);
    }
    eprintln!("B3: {} forms, {fields} fields, {} payloads: {} requests", all.len(), payloads.len() - 1, lines.len());
    let began = std::time::Instant::now();
    let mut wrk = Command::new("wrk")
        .args([&format!("-t{THREADS}"), &format!("-c{THREADS}"), "-d900s", "--timeout", "10s", "-s"])
        .arg(&script_file)
        .arg(&base)
        .stdout(Stdio::null())
        .spawn()
        .map_err(|e| format!("wrk: {e}"))?;
    // wrk sleeps its whole duration even when every thread has stopped; once each thread has
    // sent its share, an interrupt ends it (and runs the script's `done`).
    while wrk.try_wait().map_err(|e| e.to_string())?.is_none() {
        std::thread::sleep(std::time::Duration::from_millis(500));
        if markers.iter().all(|m| m.exists()) {
            crate::run(Command::new("kill").args(["-INT", &wrk.id().to_string()]))?;
            let _ = wrk.wait();
            break;
        }
    }
    let took = began.elapsed().as_secs();
    let injections = sqlmap(&base, &db, &dir.join("sqlmap"))?;
    drop(server);
    let text = std::fs::read_to_string(&findings_file).map_err(|e| format!("wrk wrote no findings file: {e}"))?;
    let answered: u64 = text.lines().filter_map(|l| l.strip_prefix("#answered\t")).filter_map(|l| l.split('\t').next()?.parse::<u64>().ok()).sum();
    let mut seen_control = false;
    let findings: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let p: usize = f.get(4)?.parse().ok()?;
            if p == control {
                seen_control = true;
                return None;
            }
            Some(json!({ "status": f[0], "kind": f[1], "method": f[2], "target": f[3], "payload": payloads.get(p - 1) }))
        })
        .collect();
    let forms_seen: Vec<String> =
        all.iter().map(|f| format!("{} {} [{}]", f.method, f.action, f.fields.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(","))).collect();
    for f in findings.iter().take(40) {
        eprintln!("  {} {} {} {}: {}", f["status"], f["kind"], f["method"], f["target"], f["payload"]);
    }
    eprintln!("B3: {answered} of {} requests answered in {took} s; {} findings", lines.len(), findings.len());
    let out = json!({ "run": "B3 hostile text in every field of the top pages", "forms": forms_seen, "payloads": payloads.len() - 1, "requests": lines.len(), "answered": answered, "seconds": took, "findings": findings, "sqlmap": injections });
    write_json(&dir.join("abuse.json"), &out)?;
    let sqlmap_found: Vec<&serde_json::Value> = injections.iter().filter(|r| r["clean"] != true).collect();
    if !sqlmap_found.is_empty() {
        return Err(format!(
            "abuse: sqlmap found an injection point, met a 5xx or did not finish on {} route(s) (target/stress/abuse.json)",
            sqlmap_found.len()
        ));
    }
    if !seen_control {
        Err("abuse: the control (a text every page shows) was not reported: the check is broken".to_owned())
    } else if findings.is_empty() && answered == lines.len() as u64 {
        Ok(())
    } else if findings.is_empty() {
        Err(format!("abuse: only {answered} of {} requests were answered", lines.len()))
    } else {
        Err(format!("abuse: {} answers were 5xx or showed a payload unescaped (target/stress/abuse.json)", findings.len()))
    }
}

/// How long sqlmap may take on one route.
const SQLMAP_SECS: u64 = 300;

/// sqlmap at level 2 (parameters and cookies) on five GET routes; per route what it said.
fn sqlmap(base: &str, db: &Db, out: &Path) -> Result<Vec<serde_json::Value>, String> {
    crate::bench::ensure_program("/usr/bin/sqlmap", "sqlmap")?;
    let _ = std::fs::remove_dir_all(out);
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let car = db.query("select min(listing_id) from listing where status = 'online'")?;
    let routes = [
        "/carlist?brand=dazhong&price=8-12&sort=new&page=2".to_owned(),
        "/carlist?q=%E5%AE%9D%E9%A9%ACX3&city=changsha".to_owned(),
        // `*`: sqlmap's mark for a point in the path.
        format!("/details/{car}*"),
        "/servicehall/pinggu/result?series=langyi&month=2021-06&mileage=3.5&city=changsha".to_owned(),
        "/servicehall/insurance/list?series=langyi&month=2022-05&city=changsha&history=clean3&tp=200&driver=1&passenger=1&damage=1".to_owned(),
    ];
    let mut results = Vec::new();
    for route in routes {
        let began = std::time::Instant::now();
        eprintln!("$ sqlmap --level 2 -u {base}{route}");
        let mut child = Command::new("/usr/bin/sqlmap")
            .args(["--batch", "--level", "2", "--risk", "1", "--threads", "4", "--flush-session", "--disable-coloring", "--timeout", "10", "--retries", "1"])
            .arg("--output-dir")
            .arg(out)
            .arg("-u")
            .arg(format!("{base}{route}"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("sqlmap: {e}"))?;
        // Its output is read on a thread of its own, so a long run cannot fill the pipe.
        let mut stdout = child.stdout.take().ok_or("sqlmap: no output")?;
        let reader = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut text);
            text
        });
        let mut finished = true;
        while child.try_wait().map_err(|e| e.to_string())?.is_none() {
            if began.elapsed().as_secs() > SQLMAP_SECS {
                let _ = child.kill();
                let _ = child.wait();
                finished = false;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        let text = reader.join().unwrap_or_default();
        let injectable = text.contains("identified the following injection point");
        // Its closing tally of error answers: "500 (Internal Server Error) - 3 times".
        let errors: Vec<&str> = text
            .lines()
            .filter(|l| {
                let l = l.trim_start().as_bytes();
                l.len() > 5 && l[0] == b'5' && l[1].is_ascii_digit() && l[2].is_ascii_digit() && l[3..5] == *b" ("
            })
            .collect();
        let clean = finished && !injectable && errors.is_empty() && text.contains("do not appear to be injectable");
        eprintln!("  {route}: {} in {} s", if clean { "nothing found" } else { "FOUND or unfinished" }, began.elapsed().as_secs());
        std::fs::write(out.join(format!("route-{}.txt", results.len() + 1)), &text).map_err(|e| e.to_string())?;
        results.push(json!({ "route": route, "clean": clean, "finished": finished, "injectable": injectable, "server_errors": errors, "seconds": began.elapsed().as_secs() }));
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_are_read_with_their_fields_and_uploads_and_other_sites_left_out() {
        let html = r#"<form action="/details/5/lead" method="post"><input type="hidden" name="intent" value="ask_price"><input name="mobile" value=""><select name="city"><option value="changsha">长沙</option></select><textarea name="note"></textarea><button name="go" value="1">提交</button></form>
<form method="get"><input name="keyword" value="宝马&amp;X3"></form>
<form action="/personalsell" method="post" enctype="multipart/form-data"><input name="price"></form>
<form action="https://elsewhere.example/x"><input name="q"></form>"#;
        let got = forms(html, "/carlist");
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0].method, "POST");
        assert_eq!(
            got[0].fields.iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>(),
            ["intent=ask_price", "mobile=", "city=changsha", "note=", "go=1"]
        );
        assert_eq!((got[1].action.as_str(), got[1].fields[0].1.as_str()), ("/carlist", "宝马&X3"));
        let names =
            link_parameters(r#"<a href="/carlist?brand=dazhong&amp;price=5-8">x</a><a href="/carlist?sort=new">y</a><a href="/news?page=2">z</a>"#, "/carlist");
        assert_eq!(names.into_iter().collect::<Vec<_>>(), ["brand", "price", "sort"]);
    }
}
