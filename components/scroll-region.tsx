import type { ReactNode } from "react";

/**
 * A table wide enough to scroll sideways on a phone. The region takes
 * keyboard focus, so it can be scrolled without a pointer even when nothing
 * inside it is focusable (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function ScrollRegion({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className="overflow-x-auto focus-visible:outline focus-visible:outline-2 focus-visible:outline-blue-600"
    >
      {children}
    </div>
  );
}
