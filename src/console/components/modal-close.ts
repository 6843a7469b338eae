/**
 * Spread into a Mantine Modal (or modals.openConfirmModal): its close button, an icon, gets a name
 * a screen reader can say (axe's button-name rule).
 */
export const NAMED_CLOSE = { closeButtonProps: { "aria-label": "Close dialog" } } as const;
