import { useState, type FormEvent } from 'react';
import { getSupabase } from '../lib/supabase';

export function LoginPage() {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ kind: 'error' | 'ok'; text: string } | null>(null);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setMessage(null);
    const { supabase } = await getSupabase();
    const { error } = await supabase.auth.signInWithPassword({ email: String(form.get('email')), password: String(form.get('password')) });
    setBusy(false);
    setMessage(error ? { kind: 'error', text: error.message } : { kind: 'ok', text: 'Welcome back!' });
  }

  return (
    <form onSubmit={onSubmit} className="mx-auto max-w-sm space-y-4">
      <h1 className="text-2xl font-semibold">Sign in</h1>
      <label className="block">
        <span className="text-sm">Email</span>
        <input name="email" type="email" required autoComplete="email" className="mt-1 w-full rounded border px-3 py-2" />
      </label>
      <label className="block">
        <span className="text-sm">Password</span>
        <input name="password" type="password" required autoComplete="current-password" className="mt-1 w-full rounded border px-3 py-2" />
      </label>
      <button type="submit" disabled={busy} className="w-full rounded bg-slate-900 py-2 text-white disabled:opacity-50">
        {busy ? 'Signing in...' : 'Sign in'}
      </button>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} className={message.kind === 'error' ? 'text-red-700' : 'text-green-700'}>
          {message.text}
        </p>
      )}
    </form>
  );
}
