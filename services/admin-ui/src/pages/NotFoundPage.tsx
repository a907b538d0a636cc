import { Link } from "wouter";

export function NotFoundPage() {
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        Nothing lives at this address. Go to the <Link href="/projects">projects</Link>.
      </p>
    </section>
  );
}
