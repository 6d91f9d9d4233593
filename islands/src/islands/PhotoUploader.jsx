// Photo uploader for the selling forms: pick or shoot several photos, downscale them in the
// browser, upload each with its own progress, reorder, remove and retry. Uploaded photos become
// hidden inputs `name` (the server's ids, in order). Without `uploadUrl` the downscaled files are
// handed to a file input of the form instead. Without JavaScript the form keeps its plain
// `<input type="file" multiple>`. Props: `PhotoUploaderProps` in crates/web/src/islands.rs.
import { useEffect, useRef, useState } from "react";
import { mount } from "../mount.js";
import { admit, downscale, move, upload } from "../kit/photos.js";

let seq = 0;

export function PhotoUploader({ name = "photos", uploadUrl = "", field = "photo", max = 30, min = 0, label = "车辆照片", existing = [], accept = "image/jpeg,image/png,image/webp", uploadImpl = upload, downscaleImpl = downscale }) {
  const [items, setItems] = useState(() => existing.map((p) => ({ key: ++seq, id: p.id, preview: p.url, status: "done", progress: 100 })));
  const [message, setMessage] = useState("");
  const fileField = useRef(null);
  const update = (key, patch) => setItems((list) => list.map((it) => (it.key === key ? { ...it, ...patch } : it)));

  const send = async (item) => {
    update(item.key, { status: "uploading", progress: 0, error: "" });
    try {
      const data = await uploadImpl(uploadUrl, field, item.file, (p) => update(item.key, { progress: p }));
      update(item.key, { status: "done", progress: 100, id: data.id });
    } catch (e) {
      update(item.key, { status: "failed", error: e.message || "上传失败" });
    }
  };

  const pick = async (e) => {
    const files = [...(e.target.files || [])];
    e.target.value = "";
    const { take, message: msg } = admit(items.length, files.length, max);
    setMessage(msg);
    const fresh = [];
    for (const f of files.slice(0, take)) {
      const file = await downscaleImpl(f);
      fresh.push({ key: ++seq, file, preview: URL.createObjectURL(file), status: uploadUrl ? "queued" : "done", progress: uploadUrl ? 0 : 100, name: f.name });
    }
    setItems((list) => [...list, ...fresh]);
    if (uploadUrl) for (const it of fresh) send(it);
  };

  // Form mode: the form posts the downscaled files themselves.
  useEffect(() => {
    if (uploadUrl || !fileField.current || typeof DataTransfer !== "function") return;
    const dt = new DataTransfer();
    items.forEach((it) => it.file && dt.items.add(it.file));
    fileField.current.files = dt.files;
  }, [items]);

  const remove = (key) => setItems((list) => list.filter((it) => it.key !== key));
  const count = items.length;
  return (
    <fieldset className="uploader">
      <legend>
        {label}（{count}/{max}）{min > 0 && count < min && <small> 至少{min}张</small>}
      </legend>
      {uploadUrl ? items.filter((it) => it.status === "done" && it.id).map((it) => <input type="hidden" name={name} value={it.id} key={it.key} />) : <input type="file" name={name} multiple hidden ref={fileField} />}
      <ol className="up-list">
        {items.map((it, i) => (
          <li key={it.key} className={"up-item up-" + it.status}>
            <img src={it.preview} alt={`第${i + 1}张`} width="120" height="90" />
            {i === 0 && <span className="up-cover">封面</span>}
            {it.status === "uploading" && (
              <progress max="100" value={it.progress} aria-label={`第${i + 1}张上传进度`}>
                {it.progress}%
              </progress>
            )}
            {it.status === "failed" && (
              <p className="error" role="alert">
                {it.error}
              </p>
            )}
            <div className="up-tools">
              <button type="button" aria-label={`第${i + 1}张左移`} disabled={i === 0} onClick={() => setItems((l) => move(l, i, -1))}>←</button>
              <button type="button" aria-label={`第${i + 1}张右移`} disabled={i === count - 1} onClick={() => setItems((l) => move(l, i, 1))}>→</button>
              {it.status === "failed" && (
                <button type="button" onClick={() => send(it)}>
                  重试
                </button>
              )}
              <button type="button" aria-label={`删除第${i + 1}张`} onClick={() => remove(it.key)}>删除</button>
            </div>
          </li>
        ))}
      </ol>
      {count < max && (
        <p className="up-add">
          <label className="btn-ghost">
            选择照片
            <input type="file" accept={accept} multiple onChange={pick} className="visually-hidden" />
          </label>
          <label className="btn-ghost">
            拍照
            <input type="file" accept="image/*" capture="environment" onChange={pick} className="visually-hidden" />
          </label>
        </p>
      )}
      {message && (
        <p className="hint" role="status">
          {message}
        </p>
      )}
    </fieldset>
  );
}

export default function mountPhotoUploader(el, props) {
  mount(PhotoUploader, el, props);
}
