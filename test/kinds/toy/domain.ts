/** The toy family's domain facts, shared by its descriptor, API module and emulator side (src/core/domain.ts holds the real families'). */
export const WIDGET_COLORS = ['red', 'green', 'blue'] as const;
