import { TEST_PAYMENTS_NOTICE } from '@shared/test-payments';
import { useAppConfig } from '@/lib/app-config';

/** On every page while the server runs the free test payment provider on purpose (PAYMENTS_PROVIDER=test). */
export function TestPaymentsBanner() {
  const { data: config } = useAppConfig();
  if (!config?.testPayments) return null;
  return (
    <p role="status" className="bg-yellow-500 px-4 py-2 text-center text-sm font-semibold text-black">
      {TEST_PAYMENTS_NOTICE}
    </p>
  );
}
