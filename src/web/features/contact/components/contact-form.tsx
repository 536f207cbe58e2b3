import { zodResolver } from '@hookform/resolvers/zod';
import { contactSchema, type ContactInput } from '@shared/validation';
import { Send } from 'lucide-react';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { FormField, InputField, invalidProps } from '@/components/ui/form-field';
import { NativeSelect, Textarea } from '@/components/ui/input';
import { toast } from '@/lib/toast';
import { useDeferredForm } from '@/lib/use-deferred-form';
import { sendContactMessage } from '../api/send-contact-message';

const empty: ContactInput = { name: '', email: '', topic: '' as ContactInput['topic'], message: '', honeypot: '' };

/** Spec §5 rules and messages come from the shared module, the same ones the server applies. */
export function ContactForm() {
  const [sent, setSent] = useState(false);
  // No defaultValues: the form hydrates after the visitor's first keystrokes (deferred), and
  // react-hook-form would write the defaults over what they typed; it reads the fields instead.
  const form = useForm<ContactInput>({ resolver: zodResolver(contactSchema), mode: 'onTouched' });
  const { errors, isSubmitting } = form.formState;

  // Send is enabled from the first paint: a click before the code arrives is answered when it has.
  const formProps = useDeferredForm(form, async (values) => {
    try {
      await sendContactMessage(values);
      toast.success('Thanks for contacting us!', "We'll get back to you as soon as we can.");
      form.reset(empty);
      setSent(true);
    } catch (e) {
      toast.error('Error', e instanceof Error ? e.message : 'Something went wrong. Please try again later.');
    }
  });

  return (
    <form {...formProps} noValidate className="space-y-5" aria-label="Contact form">
      {sent && (
        <p role="status" className="rounded-md border border-border bg-accent px-4 py-3 text-sm">
          Thanks for contacting us! Your message is on its way.
        </p>
      )}
      <InputField id="contact-name" label="Name" error={errors.name?.message} autoComplete="name" {...form.register('name')} />
      <InputField id="contact-email" label="Email" error={errors.email?.message} type="email" autoComplete="email" {...form.register('email')} />
      <FormField id="contact-topic" label="Topic" error={errors.topic?.message}>
        <NativeSelect id="contact-topic" {...form.register('topic')} {...invalidProps('contact-topic', errors.topic?.message)}>
          <option value="">Select a topic</option>
          <option value="sales">Sales</option>
          <option value="support">Support</option>
        </NativeSelect>
      </FormField>
      <FormField id="contact-message" label="Message" error={errors.message?.message}>
        <Textarea id="contact-message" rows={6} {...form.register('message')} {...invalidProps('contact-message', errors.message?.message)} />
      </FormField>
      {/* Hidden from people and assistive technology; bots that fill every field fill this one. */}
      <div aria-hidden="true" className="absolute -left-[9999px] h-px w-px overflow-hidden">
        <label htmlFor="contact-website">Website</label>
        <input id="contact-website" tabIndex={-1} autoComplete="off" {...form.register('honeypot')} />
      </div>
      {errors.honeypot?.message && (
        <p role="alert" className="text-sm text-destructive">
          {errors.honeypot.message}
        </p>
      )}
      <Button type="submit" disabled={isSubmitting} className="w-full sm:w-auto">
        <Send className="size-4" aria-hidden="true" />
        {isSubmitting ? 'Sending...' : 'Send Message'}
      </Button>
    </form>
  );
}
