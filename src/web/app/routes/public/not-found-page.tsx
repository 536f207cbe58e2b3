import { Link, useLocation } from 'react-router';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { Seo } from '@/lib/seo';

export default function NotFoundPage() {
  const { pathname } = useLocation();
  return (
    <>
      <Seo title="Page Not Found" description="The page you are looking for does not exist." path={pathname} noindex />
      <div className="mx-auto max-w-xl px-4 py-24 text-center">
        <p className="text-6xl font-bold text-primary">404</p>
        <h1 className="mt-4 text-3xl font-bold tracking-tight">Oops! Page not found</h1>
        <p className="mt-4 text-muted-foreground">The page you are looking for does not exist or has moved.</p>
        <Button asChild className="mt-8">
          <Link to={paths.home}>Return to Home</Link>
        </Button>
      </div>
    </>
  );
}
