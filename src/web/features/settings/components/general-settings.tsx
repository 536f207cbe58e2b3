import { LANGUAGES, TIME_ZONES } from '@shared/constants';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { NativeSelect } from '@/components/ui/input';
import { Switch } from '@/components/ui/switch';
import { useTheme } from '@/lib/theme';
import { makeFormatters } from '@/lib/format';

const LANGUAGE_NAMES: Record<(typeof LANGUAGES)[number], string> = {
  'en-US': 'English (US)',
  'en-GB': 'English (UK)',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
};

type Prefs = { language: string; timeZone: string };

/** Dark mode (saved at once) and the language and time zone every date and amount is shown in. */
export function GeneralSettings({ prefs, onSave, saving }: { prefs: Prefs; onSave: (p: Prefs) => void; saving: boolean }) {
  const { theme, setTheme } = useTheme();
  const [language, setLanguage] = useState(prefs.language);
  const [timeZone, setTimeZone] = useState(prefs.timeZone);
  // The sample follows the choices as they are made, before Save.
  const f = makeFormatters({ language, timeZone });
  return (
    <Card role="region" aria-labelledby="general-heading" className="space-y-6">
      <h2 id="general-heading" className="text-lg font-semibold">
        Preferences
      </h2>
      <div className="flex items-center justify-between gap-4">
        <div>
          <label htmlFor="dark-mode" className="text-sm font-medium">
            Dark mode
          </label>
          <p className="text-xs text-muted-foreground">Saved to your profile.</p>
        </div>
        <Switch id="dark-mode" checked={theme === 'dark'} onCheckedChange={(on) => setTheme(on ? 'dark' : 'light')} />
      </div>
      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        <div className="space-y-1.5">
          <label htmlFor="language" className="text-sm font-medium">
            Language
          </label>
          <NativeSelect id="language" value={language} onChange={(e) => setLanguage(e.target.value)}>
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {LANGUAGE_NAMES[l]}
              </option>
            ))}
          </NativeSelect>
        </div>
        <div className="space-y-1.5">
          <label htmlFor="time-zone" className="text-sm font-medium">
            Time zone
          </label>
          <NativeSelect id="time-zone" value={timeZone} onChange={(e) => setTimeZone(e.target.value)}>
            {TIME_ZONES.map((z) => (
              <option key={z} value={z}>
                {z.replace('_', ' ')}
              </option>
            ))}
          </NativeSelect>
        </div>
      </div>
      <p className="text-sm text-muted-foreground">
        Dates and amounts will look like:{' '}
        <span data-testid="format-sample">
          {f.dateTime(new Date().toISOString())} · {f.money(1234.5)}
        </span>
      </p>
      <Button disabled={saving} onClick={() => onSave({ language, timeZone })}>
        {saving ? 'Saving...' : 'Save Preferences'}
      </Button>
    </Card>
  );
}
