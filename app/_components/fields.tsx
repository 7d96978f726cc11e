'use client';
/**
 * The kit's text fields (re-exported by ui.tsx). Client components for one reason: text typed before React
 * hydrated the page is in the DOM but not in the owner's state (React 19 leaves a field's DOM value alone at
 * hydration), so the next render would wipe it and a submit would send the old value. At hydration each field
 * hands such text to its owner as an input event, as if typed then; on any later mount DOM and state agree and
 * nothing happens.
 */
import { useCallback, useLayoutEffect, useRef, type ComponentProps, type Ref } from 'react';
import { cx, fieldClass } from './style';

type TextField = HTMLInputElement | HTMLTextAreaElement;

/** Text-like inputs only: a checkbox's or radio's state is not its value. */
const TEXT_TYPES = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number']);

/** Fields holding text typed before hydration, and that text, in page order; handed over once hydration is done. */
const typedEarly: [TextField, string][] = [];

/**
 * One event per field, each after the one before has re-rendered its owner (an event handler's state updates are
 * applied before dispatchEvent returns): handlers of one form that copy their whole state (`setV({ ...v, name })`)
 * would otherwise each start from the state before the other fields. That re-render also puts the other fields
 * back to their state, hence the text kept aside. A field whose owner took its text over at hydration (rendered
 * now: defaultValue follows a controlled value) is left alone.
 */
function handOver() {
  for (const [field, typed] of typedEarly.splice(0)) {
    if (!field.isConnected || field.defaultValue === typed) continue;
    field.value = typed;
    // React fires onChange when the value differs from the one it last saw: tell it that was the rendered one.
    (field as { _valueTracker?: { setValue(value: string): void } })._valueTracker?.setValue(field.defaultValue);
    field.dispatchEvent(new Event('input', { bubbles: true }));
  }
}

function useTypedBeforeHydration<T extends TextField>(ref: Ref<T> | undefined) {
  const own = useRef<T | null>(null);
  useLayoutEffect(() => {
    const field = own.current;
    if (!field || field.value === field.defaultValue) return;
    if (field instanceof HTMLInputElement && !TEXT_TYPES.has(field.type)) return;
    if (typedEarly.push([field, field.value]) === 1) setTimeout(handOver, 0);
    // Once, at hydration: later typing reaches onChange itself.
  }, []);
  return useCallback(
    (node: T | null) => {
      own.current = node;
      if (typeof ref === 'function') ref(node);
      else if (ref) ref.current = node;
    },
    [ref],
  );
}

export function Input({ className, ref, ...props }: ComponentProps<'input'>) {
  const fieldRef = useTypedBeforeHydration(ref);
  return <input ref={fieldRef} className={cx(fieldClass, className)} {...props} />;
}

export function Textarea({ className, ref, ...props }: ComponentProps<'textarea'>) {
  const fieldRef = useTypedBeforeHydration(ref);
  return <textarea ref={fieldRef} className={cx(fieldClass, 'font-mono', className)} {...props} />;
}
