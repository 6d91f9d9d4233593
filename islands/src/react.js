// What our components import as "react" and "react-dom": the hooks and render of Preact's core.
// preact/compat would add ~2 KB gzip to every page with an island, and the pages must stay under
// 15 KB of island JavaScript (see ARCHITECTURE.md); our components use no compat-only API.
export { createElement, Fragment, render } from "preact";
export { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from "preact/hooks";
