import { Link } from 'react-router';
import { paths } from '@/config/paths';

export function Logo() {
  return (
    <Link to={paths.home} className="flex items-center gap-2 font-semibold" aria-label="NodeHarbor home">
      <img src="/favicon.svg" alt="" width="28" height="28" />
      <span className="text-lg">NodeHarbor</span>
    </Link>
  );
}
