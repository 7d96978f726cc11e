'use client';
/** Modal dialogs on the native <dialog> element (focus trap, Escape and inert background from the browser). */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { toast } from 'sonner';
import { Button } from './ui';

export function Dialog({
  open,
  onClose,
  title,
  children,
  footer,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    if (open && !el.open) el.showModal();
    if (!open && el.open) el.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl"
    >
      {open ? (
        <div className="p-5">
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          <div className="mt-3 space-y-3 text-sm text-zinc-700">{children}</div>
          {footer ? <div className="mt-5 flex flex-wrap justify-end gap-2">{footer}</div> : null}
        </div>
      ) : null}
    </dialog>
  );
}

/**
 * Asks before an action that changes permissions, status or data; the action runs only on the explicit
 * confirm button (Cancel has the focus first, so Enter or Escape right away changes nothing). The title
 * states the change ("Make Bob a platform admin?"); `error` shows why the server refused it, in the dialog.
 */
export function ConfirmDialog({
  open,
  onClose,
  onConfirm,
  title,
  children,
  confirmLabel,
  pending,
  variant = 'danger',
  error,
}: {
  open: boolean;
  onClose: () => void;
  onConfirm: () => void;
  title: ReactNode;
  children: ReactNode;
  confirmLabel: string;
  pending?: boolean;
  /** danger (default) for destructive actions, primary for the others. */
  variant?: 'danger' | 'primary';
  error?: string | null;
}) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={title}
      footer={
        <>
          <Button variant="secondary" onClick={onClose} disabled={pending}>
            Cancel
          </Button>
          <Button variant={variant} onClick={onConfirm} disabled={pending}>
            {pending ? 'Working…' : confirmLabel}
          </Button>
        </>
      }
    >
      {children}
      {error ? (
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-3 py-2 font-medium text-red-900">
          {error}
        </p>
      ) : null}
    </Dialog>
  );
}

export function CopyButton({
  value,
  label = 'Copy',
  what = 'Value',
}: {
  value: string;
  label?: string;
  what?: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="secondary"
      size="sm"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setCopied(true);
          toast.success(`${what} copied to the clipboard`);
          setTimeout(() => setCopied(false), 2000);
        } catch {
          toast.error('Could not copy: select the text and copy it by hand');
        }
      }}
    >
      {copied ? 'Copied' : label}
    </Button>
  );
}

/** Shows a secret exactly once, with a copy button and a plain warning. */
export function SecretDialog({
  open,
  onClose,
  title,
  secret,
  what,
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  secret: string | null;
  what: string;
  children?: ReactNode;
}) {
  return (
    <Dialog
      open={open && secret !== null}
      onClose={onClose}
      title={title}
      footer={
        <Button variant="primary" onClick={onClose}>
          I have saved it
        </Button>
      }
    >
      <p className="font-medium text-amber-900">Copy it now: you will not see it again.</p>
      {children}
      <div className="flex items-start gap-2">
        <code
          data-testid="secret-value"
          className="block flex-1 rounded-lg border border-zinc-300 bg-zinc-50 px-3 py-2 font-mono text-xs break-all text-zinc-900"
        >
          {secret}
        </code>
        {secret ? <CopyButton value={secret} what={what} /> : null}
      </div>
    </Dialog>
  );
}
