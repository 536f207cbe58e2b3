import { Link } from 'react-router';

export function HomePage() {
  return (
    <section className="py-16 text-center">
      <h1 className="text-4xl font-bold tracking-tight">Host your blockchain gaming nodes, fully managed</h1>
      <p className="mx-auto mt-4 max-w-2xl text-lg text-slate-600">
        A Gala Town Star node at $10/month or a Playa3ull Master Node at $3/month, started with your own key. No server, no
        command line: deployed within minutes, monitored around the clock.
      </p>
      <div className="mt-8 flex justify-center gap-3">
        <Link to="/login" className="rounded bg-slate-900 px-5 py-2.5 text-white">
          Host Gaming Nodes
        </Link>
      </div>
    </section>
  );
}
