/**
 * The log table's styles (rows, the live tail's highlight, clickable values, status badges), in
 * both themes. Status colours are dark enough in light and light enough in dark for WCAG AA text
 * contrast on a row (hovered or selected too); the status is always its code in text as well.
 */
export const TABLE_CSS = `
.hone-logs-head { background: var(--mantine-color-body); border-bottom: 1px solid var(--mantine-color-default-border); }
.hone-log-row {
  position: absolute; top: 0; left: 0; width: 100%; height: 36px; display: grid; align-items: center; cursor: pointer;
  border-bottom: 1px solid var(--mantine-color-default-border); outline-offset: -2px;
  contain: layout paint style; /* a row's layout and paint never reach past its own box */
}
.hone-log-check { padding-left: 10px; display: flex; }
.hone-log-check input { width: 16px; height: 16px; margin: 0; cursor: pointer; accent-color: var(--mantine-primary-color-filled); }
.hone-log-row:hover { background: var(--mantine-color-default-hover); }
.hone-log-row[aria-selected="true"] { background: var(--mantine-primary-color-light); }
.hone-log-row-active { box-shadow: inset 3px 0 0 var(--mantine-primary-color-filled); background: var(--mantine-color-default-hover); }
.hone-log-row-new { animation: hone-log-new 3s ease-out; }
@keyframes hone-log-new { from { background: var(--mantine-color-yellow-light); } to { background: transparent; } }
.hone-cell-value { all: unset; cursor: pointer; border-radius: 3px; max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.hone-cell-value:hover { text-decoration: underline; text-underline-offset: 2px; }
.hone-cell-value:focus-visible { outline: 2px solid var(--mantine-primary-color-filled); }
.hone-tag-value { font-family: var(--mantine-font-family-monospace); font-size: 12px; margin-right: 8px; }
.hone-status { display: inline-block; min-width: 42px; box-sizing: border-box; text-align: center; border: 1px solid currentColor; border-radius: 4px;
  padding: 0 5px; font-size: 12px; font-weight: 700; line-height: 18px; font-variant-numeric: tabular-nums; }
[data-mantine-color-scheme="light"] .hone-status[data-tone="ok"] { color: #0b6e4f; }
[data-mantine-color-scheme="light"] .hone-status[data-tone="redirect"] { color: #1864ab; }
[data-mantine-color-scheme="light"] .hone-status[data-tone="client"] { color: #a63c06; }
[data-mantine-color-scheme="light"] .hone-status[data-tone="server"] { color: #b02525; }
[data-mantine-color-scheme="light"] .hone-status[data-tone="none"] { color: #495057; }
[data-mantine-color-scheme="dark"] .hone-status[data-tone="ok"] { color: var(--mantine-color-teal-3); }
[data-mantine-color-scheme="dark"] .hone-status[data-tone="redirect"] { color: var(--mantine-color-blue-3); }
[data-mantine-color-scheme="dark"] .hone-status[data-tone="client"] { color: var(--mantine-color-orange-3); }
[data-mantine-color-scheme="dark"] .hone-status[data-tone="server"] { color: var(--mantine-color-red-3); }
[data-mantine-color-scheme="dark"] .hone-status[data-tone="none"] { color: var(--mantine-color-dark-1); }
.hone-refused { margin-right: 6px; font-size: 11px; font-weight: 600; white-space: nowrap; }
[data-mantine-color-scheme="light"] .hone-refused { color: #a63c06; }
[data-mantine-color-scheme="dark"] .hone-refused { color: var(--mantine-color-orange-3); }
`;
