// A dialog over the screen: focused when it opens, its keys kept from the
// screen underneath, Escape or Close to leave.

import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";

export interface ModalProps {
  title: string;
  testId: string;
  closeTestId: string;
  onClose: () => void;
  /** Keys other than Escape; return true when handled. */
  onKey?: (key: string) => boolean;
  /** Controls in the title bar, before Close. */
  actions?: ComponentChildren;
  children: ComponentChildren;
}

export function Modal({ title, testId, closeTestId, onClose, onKey, actions, children }: ModalProps) {
  const dialog = useRef<HTMLDivElement>(null);
  const titleId = useId();
  useEffect(() => {
    dialog.current?.focus();
  }, []);
  return (
    <div class="overlay" role="presentation">
      <div
        class="overlay__dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        ref={dialog}
        data-testid={testId}
        onKeyDown={(e) => {
          // The dialog's keys are its own, not the screen's underneath.
          e.stopPropagation();
          if (e.key === "Escape") onClose();
          else if (onKey?.(e.key) !== true) return;
          e.preventDefault();
        }}
      >
        <header class="overlay__bar">
          <h2 id={titleId} class="overlay__title">
            {title}
          </h2>
          {actions}
          <button type="button" class="button button--small" data-testid={closeTestId} onClick={onClose}>
            Close
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}
