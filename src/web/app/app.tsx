import { Link, Route, Routes } from 'react-router';
import { HomePage } from './home-page';
import { LoginPage } from './login-page';

export function App() {
  return (
    <div className="min-h-screen bg-white text-slate-900">
      <header className="sticky top-0 border-b border-slate-200 bg-white/90 backdrop-blur">
        <nav className="mx-auto flex max-w-5xl items-center justify-between px-4 py-3" aria-label="Main">
          <Link to="/" className="font-semibold">
            NodeHarbor
          </Link>
          <Link to="/login" className="rounded bg-slate-900 px-3 py-1.5 text-sm text-white">
            Login
          </Link>
        </nav>
      </header>
      <main className="mx-auto max-w-5xl px-4 py-10">
        <Routes>
          <Route path="/" element={<HomePage />} />
          <Route path="/login" element={<LoginPage />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </div>
  );
}

function NotFound() {
  return (
    <div className="py-20 text-center">
      <h1 className="text-3xl font-bold">Oops! Page not found</h1>
      <Link to="/" className="mt-4 inline-block underline">
        Return to Home
      </Link>
    </div>
  );
}
