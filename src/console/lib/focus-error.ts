/**
 * After a form's errors are shown: brings the first field in error into view and puts the cursor
 * in it, so an error below the fold (or in a long dialog) is never missed. Runs on the next frame,
 * once the error props have reached the DOM.
 */
export function focusFirstError(root: HTMLElement | null): void {
  requestAnimationFrame(() => {
    const field = root?.querySelector<HTMLElement>('[aria-invalid="true"], [data-invalid="true"]');
    if (!field) return;
    field.scrollIntoView({ block: "center" });
    field.focus({ preventScroll: true });
  });
}
