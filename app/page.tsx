export default function Home() {
  return (
    <main>
      <h1>Hub</h1>
      <p>
        The catalog API is at <a href="/api/v1/catalog/templates">/api/v1/catalog/templates</a>; its OpenAPI document is at{' '}
        <a href="/api/v1/openapi.json">/api/v1/openapi.json</a>.
      </p>
    </main>
  );
}
