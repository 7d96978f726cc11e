'use client';
/**
 * One place for a form's error: a field's message is shown beside that field (Field's `error`), once; only an
 * error that no visible field can show (a conflict, a refusal, a network failure) goes to a toast.
 */
import { toast } from 'sonner';
import { errorMessage, fieldErrors } from './errors';

/** Toasts the error unless one of `fields` shows it inline. */
export function toastUnlessInline(err: unknown, fields: string[]) {
  const inline = fieldErrors(err);
  if (fields.some((f) => inline[f] !== undefined)) return;
  toast.error(errorMessage(err));
}
