/**
 * The demo catalog's data: 32 templates with their real upstream images, ports, data paths and variables, and
 * beside each template a REFERENCE record of what the image's own documentation says (documented ports, volumes,
 * variables with their defaults) and where (its official documentation page). tests/catalog/demo-catalog.test.ts checks
 * every template against its reference. The three "enterprise-ai" templates are fictional examples of a licensed,
 * private category and say so. docs/demo-catalog.md lists the sources and what could not be verified.
 */
import type { EnvSchemaEntry, EnvVar, Port, VolumeMount } from '../../db/schema';

export type DemoReference = {
  /** The image's official documentation page (or, for a fictional template, the word "fictional"). */
  source: string;
  /**
   * How the record was checked: 'searched' = read in the documentation through the reference search while writing
   * this file; 'recalled' = written from the documentation as known, not re-read (see docs/demo-catalog.md);
   * 'fictional' = an invented example.
   */
  checked: 'searched' | 'recalled' | 'fictional';
  ports: Port[];
  /** Documented data paths inside the container. */
  volumes: string[];
  /** Documented variables and their documented defaults ('' when the documentation gives none). */
  variables: Record<string, string>;
  note?: string;
};

export type DemoTemplate = {
  slug: string;
  name: string;
  category: string;
  tags: string[];
  featured?: boolean;
  image: string;
  tag: string;
  version: string;
  /** One sentence, different for every template (searched by the catalog). */
  description: string;
  /** The first paragraph of the documentation: what it is. */
  about: string;
  firstSteps: string[];
  cpu: string;
  memory: string;
  gpu?: number;
  vram?: string;
  ports: Port[];
  volumes: VolumeMount[];
  env: EnvVar[];
  envSchema: EnvSchemaEntry[];
  command?: string[];
  reference: DemoReference;
};

/** Core's rule: a variable whose name has one of these as a word part takes a bound secret, never a literal. */
export const CREDENTIAL_NAME_RE = /(^|[^A-Za-z0-9])(password|secret|token|key|credential)s?([^A-Za-z0-9]|$)/i;

const tcp = (containerPort: number): Port => ({ containerPort, protocol: 'TCP' });
const udp = (containerPort: number): Port => ({ containerPort, protocol: 'UDP' });
const vol = (name: string, mountPath: string): VolumeMount => ({ name, mountPath });
const v = (name: string, defaultValue: string, description: string, required = false): EnvSchemaEntry => ({
  name,
  required,
  default_value: defaultValue,
  description,
});

export const DEMO_TEMPLATES: DemoTemplate[] = [
  // ---------------------------------------------------------------- AI & Machine Learning
  {
    slug: 'ollama',
    name: 'Ollama',
    category: 'ai-ml',
    tags: ['llm', 'inference', 'gpu'],
    featured: true,
    image: 'ollama/ollama',
    tag: '0.5.7',
    version: '0.5.7',
    description: 'Run open-weight LLMs such as Llama, Mistral and Gemma behind a local REST API on port 11434.',
    about:
      'Ollama downloads and serves open-weight language models (Llama, Mistral, Gemma, Qwen, …) behind a small ' +
      'REST API. Models are pulled on demand into `/root/.ollama` and kept there across restarts.',
    firstSteps: [
      'Deploy with one GPU; the API answers on port 11434 (`GET /api/tags` lists the pulled models).',
      'Pull a model: `curl http://<host>:11434/api/pull -d \'{"model":"llama3.2"}\'`.',
      'Chat: `curl http://<host>:11434/api/chat -d \'{"model":"llama3.2","messages":[{"role":"user","content":"Hi"}]}\'`.',
      'Set `OLLAMA_KEEP_ALIVE` to keep a model in memory longer than five minutes after its last request.',
    ],
    cpu: '2',
    memory: '8Gi',
    gpu: 1,
    vram: '8Gi',
    ports: [tcp(11434)],
    volumes: [vol('models', '/root/.ollama')],
    env: [],
    envSchema: [
      v('OLLAMA_HOST', '0.0.0.0:11434', 'Address the server binds (the image sets 0.0.0.0:11434)'),
      v('OLLAMA_KEEP_ALIVE', '5m', 'How long a model stays loaded after its last request (e.g. 10m, 24h, -1 forever)'),
      v('OLLAMA_NUM_PARALLEL', '', 'Parallel requests per model (default: chosen from the available memory)'),
      v('OLLAMA_MAX_LOADED_MODELS', '', 'Models loaded at the same time (default: chosen from the available memory)'),
    ],
    reference: {
      source: 'https://hub.docker.com/r/ollama/ollama',
      checked: 'recalled',
      ports: [tcp(11434)],
      volumes: ['/root/.ollama'],
      variables: {
        OLLAMA_HOST: '0.0.0.0:11434',
        OLLAMA_KEEP_ALIVE: '5m',
        OLLAMA_NUM_PARALLEL: '',
        OLLAMA_MAX_LOADED_MODELS: '',
      },
      note: 'Variables and defaults from https://github.com/ollama/ollama/blob/main/docs/faq.md',
    },
  },
  {
    slug: 'vllm',
    name: 'vLLM',
    category: 'ai-ml',
    tags: ['llm', 'inference', 'openai', 'gpu'],
    image: 'vllm/vllm-openai',
    tag: 'v0.7.2',
    version: '0.7.2',
    description: 'High-throughput LLM serving with PagedAttention and an OpenAI-compatible API on port 8000.',
    about:
      'vLLM serves a Hugging Face model with continuous batching and PagedAttention, behind an OpenAI-compatible ' +
      'HTTP API (`/v1/chat/completions`, `/v1/completions`, `/v1/models`). The model is named by the container ' +
      'arguments (`--model …`); downloaded weights are cached in `/root/.cache/huggingface`.',
    firstSteps: [
      'Edit the command to name your model (default here: `--model mistralai/Mistral-7B-v0.1`).',
      'For gated models bind a Core secret holding a Hugging Face token to `HUGGING_FACE_HUB_TOKEN`.',
      'Bind a secret to `VLLM_API_KEY` so clients must send `Authorization: Bearer <key>`.',
      'Test: `curl http://<host>:8000/v1/models`.',
    ],
    cpu: '4',
    memory: '16Gi',
    gpu: 1,
    vram: '24Gi',
    ports: [tcp(8000)],
    volumes: [vol('hf-cache', '/root/.cache/huggingface')],
    env: [],
    envSchema: [
      v('HUGGING_FACE_HUB_TOKEN', '', 'Hugging Face access token for gated or private models (bind a Core secret)'),
      v('VLLM_API_KEY', '', 'API key clients must present (bind a Core secret); unset = no authentication'),
    ],
    command: ['--model', 'mistralai/Mistral-7B-v0.1'],
    reference: {
      source: 'https://docs.vllm.ai/en/latest/deployment/docker.html',
      checked: 'recalled',
      ports: [tcp(8000)],
      volumes: ['/root/.cache/huggingface'],
      variables: { HUGGING_FACE_HUB_TOKEN: '', VLLM_API_KEY: '' },
    },
  },
  {
    slug: 'jupyterlab',
    name: 'JupyterLab',
    category: 'ai-ml',
    tags: ['notebook', 'python'],
    image: 'quay.io/jupyter/scipy-notebook',
    tag: '2025-01-13',
    version: '2025-01-13',
    description:
      'Jupyter Docker Stacks notebook server with the scientific Python stack (pandas, SciPy, scikit-learn).',
    about:
      'The `scipy-notebook` image of the Jupyter Docker Stacks: JupyterLab with pandas, NumPy, SciPy, ' +
      'scikit-learn, matplotlib and friends, running as the user `jovyan` (uid 1000). Work saved under ' +
      '`/home/jovyan/work` survives restarts.',
    firstSteps: [
      'Bind a Core secret to `JUPYTER_TOKEN`; open `http://<host>:8888/lab?token=<token>`.',
      'Save notebooks under `work/` (the persistent volume); everything else in the home directory is lost on restart.',
      'Install extra packages with `mamba install` or `pip install` in a terminal (not persistent).',
    ],
    cpu: '1',
    memory: '2Gi',
    ports: [tcp(8888)],
    volumes: [vol('work', '/home/jovyan/work')],
    env: [],
    envSchema: [
      v('JUPYTER_TOKEN', '', 'The token that opens the server (bind a Core secret)', true),
      v('JUPYTER_PORT', '8888', 'Port the server listens on'),
      v('DOCKER_STACKS_JUPYTER_CMD', 'lab', 'Which frontend starts: lab, notebook, nbclassic or server'),
      v('NB_UID', '1000', 'Numeric user id of jovyan (only honoured when the container starts as root)'),
    ],
    reference: {
      source: 'https://jupyter-docker-stacks.readthedocs.io/en/latest/using/common.html',
      checked: 'recalled',
      ports: [tcp(8888)],
      volumes: ['/home/jovyan/work'],
      variables: { JUPYTER_TOKEN: '', JUPYTER_PORT: '8888', DOCKER_STACKS_JUPYTER_CMD: 'lab', NB_UID: '1000' },
    },
  },
  {
    slug: 'stable-diffusion-webui',
    name: 'Stable Diffusion WebUI',
    category: 'ai-ml',
    tags: ['image', 'gpu'],
    image: 'ghcr.io/neggles/sd-webui-docker',
    tag: 'latest',
    version: 'latest',
    description: 'AUTOMATIC1111 web interface for Stable Diffusion text-to-image and image-to-image generation.',
    about:
      'A community container of the AUTOMATIC1111 Stable Diffusion web UI: text-to-image, image-to-image, ' +
      'inpainting and extensions in the browser. Models, outputs and settings are kept in `/data`. This image ' +
      'is a community build (neggles/sd-webui-docker), not an official release of the web UI, and publishes only ' +
      'rolling tags.',
    firstSteps: [
      'Deploy with one GPU (8 GiB of VRAM or more); the UI answers on port 7860.',
      'Put checkpoints (`.safetensors`) into the models folder under `/data` and reload the checkpoint list.',
      'Generated images are written to the outputs folder under `/data`.',
    ],
    cpu: '2',
    memory: '12Gi',
    gpu: 1,
    vram: '12Gi',
    ports: [tcp(7860)],
    volumes: [vol('data', '/data')],
    env: [],
    envSchema: [],
    reference: {
      source: 'https://github.com/neggles/sd-webui-docker',
      checked: 'recalled',
      ports: [tcp(7860)],
      volumes: ['/data'],
      variables: {},
      note: "Port 7860 is the web UI's documented default; the /data layout of this community image was not verified.",
    },
  },
  {
    slug: 'open-webui',
    name: 'Open WebUI',
    category: 'ai-ml',
    tags: ['llm', 'chat', 'ui'],
    featured: true,
    image: 'ghcr.io/open-webui/open-webui',
    tag: 'v0.5.7',
    version: '0.5.7',
    description: 'Self-hosted ChatGPT-style interface for Ollama and OpenAI-compatible model servers.',
    about:
      'Open WebUI is a chat interface for local and remote models: it talks to Ollama (`OLLAMA_BASE_URL`) and ' +
      'to any OpenAI-compatible API (`OPENAI_API_KEY`), with users, chat history, documents and RAG. Its SQLite ' +
      'database and uploads live in `/app/backend/data`.',
    firstSteps: [
      'Set `OLLAMA_BASE_URL` to your Ollama deployment, e.g. `http://ollama:11434`.',
      'Bind a Core secret to `WEBUI_SECRET_KEY` so sign-ins survive restarts.',
      'Open port 8080: the first account created becomes the administrator; then set `ENABLE_SIGNUP` to `false`.',
    ],
    cpu: '1',
    memory: '2Gi',
    ports: [tcp(8080)],
    volumes: [vol('data', '/app/backend/data')],
    env: [],
    envSchema: [
      v('OLLAMA_BASE_URL', 'http://localhost:11434', 'URL of the Ollama server'),
      v('WEBUI_SECRET_KEY', '', 'Key that signs sessions (bind a Core secret)', true),
      v('OPENAI_API_KEY', '', 'Key for an OpenAI-compatible API (bind a Core secret)'),
      v('ENABLE_SIGNUP', 'True', 'Whether new people may create accounts'),
    ],
    reference: {
      source: 'https://docs.openwebui.com/getting-started/env-configuration',
      checked: 'searched',
      ports: [tcp(8080)],
      volumes: ['/app/backend/data'],
      variables: {
        OLLAMA_BASE_URL: 'http://localhost:11434',
        WEBUI_SECRET_KEY: '',
        OPENAI_API_KEY: '',
        ENABLE_SIGNUP: 'True',
      },
      note:
        "OLLAMA_BASE_URL and OPENAI_API_KEY defaults read in the project's .env.example; ENABLE_SIGNUP and " +
        'WEBUI_SECRET_KEY from the environment reference as recalled (its excerpt did not show them).',
    },
  },
  {
    slug: 'mlflow',
    name: 'MLflow',
    category: 'ai-ml',
    tags: ['tracking', 'python'],
    image: 'ghcr.io/mlflow/mlflow',
    tag: 'v2.20.1',
    version: '2.20.1',
    description: 'Experiment tracking server and model registry for machine-learning runs, parameters and artifacts.',
    about:
      "MLflow's tracking server records runs, parameters, metrics and artifacts, and keeps a model registry. " +
      'The image contains the `mlflow` CLI only; this template starts `mlflow server` on port 5000 with a SQLite ' +
      'backend store and artifacts under `/mlflow`.',
    firstSteps: [
      'Point clients at the server: `export MLFLOW_TRACKING_URI=http://<host>:5000`.',
      'Log a run from Python: `mlflow.start_run()` / `mlflow.log_metric("loss", 0.1)`.',
      'For S3-compatible artifact storage set `MLFLOW_S3_ENDPOINT_URL` and bind secrets to `AWS_ACCESS_KEY_ID` ' +
        'and `AWS_SECRET_ACCESS_KEY`, then change `--artifacts-destination` to an `s3://` URI.',
    ],
    cpu: '500m',
    memory: '1Gi',
    ports: [tcp(5000)],
    volumes: [vol('mlflow', '/mlflow')],
    env: [],
    envSchema: [
      v('MLFLOW_S3_ENDPOINT_URL', '', 'Endpoint of an S3-compatible artifact store (e.g. MinIO)'),
      v('AWS_ACCESS_KEY_ID', '', 'Access key of the artifact store (bind a Core secret)'),
      v('AWS_SECRET_ACCESS_KEY', '', 'Secret key of the artifact store (bind a Core secret)'),
    ],
    command: [
      'mlflow',
      'server',
      '--host',
      '0.0.0.0',
      '--port',
      '5000',
      '--backend-store-uri',
      'sqlite:////mlflow/mlflow.db',
      '--artifacts-destination',
      '/mlflow/artifacts',
    ],
    reference: {
      source: 'https://mlflow.org/docs/latest/tracking/server.html',
      checked: 'recalled',
      ports: [tcp(5000)],
      volumes: ['/mlflow'],
      variables: { MLFLOW_S3_ENDPOINT_URL: '', AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' },
      note: "Port 5000 is `mlflow server`'s documented default; /mlflow is the path this template's command chooses.",
    },
  },
  {
    slug: 'text-embeddings-inference',
    name: 'Text Embeddings Inference',
    category: 'ai-ml',
    tags: ['embeddings', 'inference'],
    image: 'ghcr.io/huggingface/text-embeddings-inference',
    tag: 'cpu-1.6',
    version: '1.6',
    description: 'Hugging Face server for embedding and reranker models (BGE, E5, GTE) with /embed and /rerank.',
    about:
      'Text Embeddings Inference (TEI) serves embedding, reranker and sequence-classification models with token ' +
      'based dynamic batching. This template uses the CPU build (`cpu-1.6`); the model named by `MODEL_ID` is ' +
      'downloaded into `/data` on the first start. The container listens on port 80.',
    firstSteps: [
      'Set `MODEL_ID`, e.g. `BAAI/bge-small-en-v1.5`.',
      'Embed: `curl http://<host>/embed -X POST -H "Content-Type: application/json" -d \'{"inputs":"Hello"}\'`.',
      'For gated models bind a Core secret holding a Hugging Face token to `HF_API_TOKEN`.',
      'The image also reads `MAX_BATCH_TOKENS`; Core takes that name for a credential (TOKENS), so pass ' +
        '`--max-batch-tokens` in the command instead.',
    ],
    cpu: '2',
    memory: '4Gi',
    ports: [tcp(80)],
    volumes: [vol('data', '/data')],
    env: [],
    envSchema: [
      v('MODEL_ID', '', 'Hugging Face model id to serve, e.g. BAAI/bge-small-en-v1.5', true),
      v('HF_API_TOKEN', '', 'Hugging Face token for gated models (bind a Core secret)'),
    ],
    reference: {
      source: 'https://huggingface.co/docs/text-embeddings-inference/quick_tour',
      checked: 'searched',
      ports: [tcp(80)],
      volumes: ['/data'],
      variables: { MODEL_ID: '', HF_API_TOKEN: '', MAX_BATCH_TOKENS: '16384' },
      note:
        "Port 80 and /data read in the quick tour; the variable names are the CLI flags' env equivalents " +
        "(`--model-id` = MODEL_ID) from the README's CLI reference, recalled, not re-read. MAX_BATCH_TOKENS is " +
        'documented but not declared: Core reads its name as a credential (TOKENS) and would refuse a literal.',
    },
  },
  // ---------------------------------------------------------------- Databases
  {
    slug: 'postgresql',
    name: 'PostgreSQL',
    category: 'databases',
    tags: ['sql', 'relational'],
    featured: true,
    image: 'postgres',
    tag: '17.2',
    version: '17.2',
    description: 'The official PostgreSQL 17 image: an advanced open-source relational database on port 5432.',
    about:
      'PostgreSQL is an object-relational SQL database. The official image initialises a cluster in ' +
      '`/var/lib/postgresql/data` on the first start, creating the superuser `POSTGRES_USER` with the password ' +
      'from `POSTGRES_PASSWORD`.',
    firstSteps: [
      'Create a Core secret with the superuser password and bind it to `POSTGRES_PASSWORD` (required).',
      'Optionally set `POSTGRES_DB` to create a database with another name than the user.',
      'Connect: `psql "postgresql://postgres:<password>@<host>:5432/postgres"`.',
      'The variables only act on an empty data directory: changing them later does not change existing users.',
    ],
    cpu: '500m',
    memory: '1Gi',
    ports: [tcp(5432)],
    volumes: [vol('data', '/var/lib/postgresql/data')],
    env: [],
    envSchema: [
      v('POSTGRES_PASSWORD', '', 'Superuser password (bind a Core secret)', true),
      v('POSTGRES_USER', 'postgres', 'Superuser name'),
      v('POSTGRES_DB', '', 'Default database to create (default: the value of POSTGRES_USER)'),
      v('POSTGRES_INITDB_ARGS', '', 'Extra arguments for initdb, e.g. "--data-checksums"'),
      v('PGDATA', '/var/lib/postgresql/data', 'Data directory (use a subdirectory if the volume root is not empty)'),
    ],
    reference: {
      source: 'https://hub.docker.com/_/postgres',
      checked: 'searched',
      ports: [tcp(5432)],
      volumes: ['/var/lib/postgresql/data'],
      variables: {
        POSTGRES_PASSWORD: '',
        POSTGRES_USER: 'postgres',
        POSTGRES_DB: '',
        POSTGRES_INITDB_ARGS: '',
        PGDATA: '/var/lib/postgresql/data',
      },
      note: 'POSTGRES_DB defaults to the value of POSTGRES_USER.',
    },
  },
  {
    slug: 'mariadb',
    name: 'MariaDB',
    category: 'databases',
    tags: ['sql', 'relational'],
    image: 'mariadb',
    tag: '11.4',
    version: '11.4',
    description: 'MariaDB Server 11.4 LTS, the community-developed MySQL-compatible relational database.',
    about:
      'MariaDB Server is a MySQL-compatible relational database. The official image initialises ' +
      '`/var/lib/mysql` on the first start with the root password from `MARIADB_ROOT_PASSWORD` and can create ' +
      'one database and user (`MARIADB_DATABASE`, `MARIADB_USER`, `MARIADB_PASSWORD`).',
    firstSteps: [
      'Bind a Core secret to `MARIADB_ROOT_PASSWORD` (required).',
      'For an application, set `MARIADB_DATABASE` and `MARIADB_USER`, and bind a second secret to `MARIADB_PASSWORD`.',
      'Connect: `mariadb -h <host> -P 3306 -u root -p`.',
    ],
    cpu: '500m',
    memory: '1Gi',
    ports: [tcp(3306)],
    volumes: [vol('data', '/var/lib/mysql')],
    env: [],
    envSchema: [
      v('MARIADB_ROOT_PASSWORD', '', 'Password of root (bind a Core secret)', true),
      v('MARIADB_DATABASE', '', 'Database to create on the first start'),
      v('MARIADB_USER', '', 'User to create, granted all rights on MARIADB_DATABASE'),
      v('MARIADB_PASSWORD', '', 'Password of MARIADB_USER (bind a Core secret)'),
    ],
    reference: {
      source: 'https://hub.docker.com/_/mariadb',
      checked: 'searched',
      ports: [tcp(3306)],
      volumes: ['/var/lib/mysql'],
      variables: { MARIADB_ROOT_PASSWORD: '', MARIADB_DATABASE: '', MARIADB_USER: '', MARIADB_PASSWORD: '' },
    },
  },
  {
    slug: 'redis',
    name: 'Redis',
    category: 'databases',
    tags: ['cache', 'key-value'],
    image: 'redis',
    tag: '7.4',
    version: '7.4',
    description: 'In-memory key-value store for caching, queues and pub/sub, with snapshots to disk.',
    about:
      'Redis keeps data structures (strings, hashes, lists, sets, streams) in memory. The official image has no ' +
      'configuration variables: it is configured by the arguments of `redis-server`. This template saves a ' +
      'snapshot to `/data` when at least one key changed in 60 seconds.',
    firstSteps: [
      'Connect: `redis-cli -h <host> -p 6379 ping`.',
      'Redis has no password by default: keep it on a private network, or add `--requirepass` through a ' +
        'mounted configuration file (a literal password in the command would be visible to every reader).',
      'For append-only persistence add `--appendonly yes` to the command.',
    ],
    cpu: '250m',
    memory: '512Mi',
    ports: [tcp(6379)],
    volumes: [vol('data', '/data')],
    env: [],
    envSchema: [],
    command: ['redis-server', '--save', '60', '1', '--loglevel', 'warning'],
    reference: {
      source: 'https://hub.docker.com/_/redis',
      checked: 'recalled',
      ports: [tcp(6379)],
      volumes: ['/data'],
      variables: {},
    },
  },
  {
    slug: 'mongodb',
    name: 'MongoDB',
    category: 'databases',
    tags: ['document', 'nosql'],
    image: 'mongo',
    tag: '8.0',
    version: '8.0',
    description: 'Document database storing JSON-like BSON documents, with a root user created on first start.',
    about:
      'MongoDB stores BSON documents in collections. The official image enables authentication and creates a ' +
      'root user in the `admin` database when `MONGO_INITDB_ROOT_USERNAME` and `MONGO_INITDB_ROOT_PASSWORD` are ' +
      'set on the first start; data lives in `/data/db`.',
    firstSteps: [
      'Set `MONGO_INITDB_ROOT_USERNAME` and bind a Core secret to `MONGO_INITDB_ROOT_PASSWORD`.',
      'Connect: `mongosh "mongodb://<user>:<password>@<host>:27017/?authSource=admin"`.',
      '`MONGO_INITDB_DATABASE` names the database the scripts in /docker-entrypoint-initdb.d run against.',
    ],
    cpu: '500m',
    memory: '1Gi',
    ports: [tcp(27017)],
    volumes: [vol('data', '/data/db')],
    env: [],
    envSchema: [
      v('MONGO_INITDB_ROOT_USERNAME', '', 'Root user created on the first start', true),
      v('MONGO_INITDB_ROOT_PASSWORD', '', 'Password of the root user (bind a Core secret)', true),
      v('MONGO_INITDB_DATABASE', '', 'Database used by the initialisation scripts'),
    ],
    reference: {
      source: 'https://hub.docker.com/_/mongo',
      checked: 'recalled',
      ports: [tcp(27017)],
      volumes: ['/data/db'],
      variables: { MONGO_INITDB_ROOT_USERNAME: '', MONGO_INITDB_ROOT_PASSWORD: '', MONGO_INITDB_DATABASE: '' },
    },
  },
  {
    slug: 'qdrant',
    name: 'Qdrant',
    category: 'databases',
    tags: ['vector', 'search', 'embeddings'],
    image: 'qdrant/qdrant',
    tag: 'v1.13.2',
    version: '1.13.2',
    description: 'Vector similarity search engine with payload filtering, REST on 6333 and gRPC on 6334.',
    about:
      'Qdrant stores vectors with JSON payloads and answers nearest-neighbour queries with filters. REST and the ' +
      'web dashboard are on port 6333, gRPC on 6334; collections are stored in `/qdrant/storage`. Any setting of ' +
      'its configuration file can be given as a `QDRANT__SECTION__KEY` variable.',
    firstSteps: [
      'Bind a Core secret to `QDRANT__SERVICE__API_KEY`; clients send it in the `api-key` header.',
      'Open the dashboard at `http://<host>:6333/dashboard`.',
      'Create a collection: `PUT /collections/docs` with `{"vectors":{"size":384,"distance":"Cosine"}}`.',
    ],
    cpu: '500m',
    memory: '1Gi',
    ports: [tcp(6333), tcp(6334)],
    volumes: [vol('storage', '/qdrant/storage')],
    env: [],
    envSchema: [
      v('QDRANT__SERVICE__API_KEY', '', 'API key required on every request (bind a Core secret)'),
      v('QDRANT__LOG_LEVEL', 'INFO', 'Log level: TRACE, DEBUG, INFO, WARN or ERROR'),
    ],
    reference: {
      source: 'https://qdrant.tech/documentation/guides/installation/',
      checked: 'searched',
      ports: [tcp(6333), tcp(6334)],
      volumes: ['/qdrant/storage'],
      variables: { QDRANT__SERVICE__API_KEY: '', QDRANT__LOG_LEVEL: 'INFO' },
      note: 'Ports and storage path read; variable names follow the documented QDRANT__SECTION__KEY convention.',
    },
  },
  {
    slug: 'clickhouse',
    name: 'ClickHouse',
    category: 'databases',
    tags: ['analytics', 'sql'],
    image: 'clickhouse/clickhouse-server',
    tag: '25.1',
    version: '25.1',
    description: 'Column-oriented OLAP database for real-time analytics over billions of rows.',
    about:
      'ClickHouse is a columnar SQL database for analytical queries. HTTP (and the Play UI) listen on 8123, the ' +
      'native protocol on 9000; data lives in `/var/lib/clickhouse`. Since 24.x the `default` user has no network ' +
      'access unless a password is set.',
    firstSteps: [
      'Bind a Core secret to `CLICKHOUSE_PASSWORD` (the password of `CLICKHOUSE_USER`, `default` unless changed).',
      'Query over HTTP: `curl -u default:<password> "http://<host>:8123/?query=SELECT%201"`.',
      'Set `CLICKHOUSE_DB` to create a database on the first start.',
    ],
    cpu: '1',
    memory: '4Gi',
    ports: [tcp(8123), tcp(9000)],
    volumes: [vol('data', '/var/lib/clickhouse')],
    env: [],
    envSchema: [
      v('CLICKHOUSE_PASSWORD', '', 'Password of CLICKHOUSE_USER (bind a Core secret)', true),
      v('CLICKHOUSE_USER', 'default', 'User created with that password'),
      v('CLICKHOUSE_DB', '', 'Database to create on the first start'),
      v('CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT', '0', '1 lets the user manage users and grants with SQL'),
    ],
    reference: {
      source: 'https://hub.docker.com/r/clickhouse/clickhouse-server',
      checked: 'searched',
      ports: [tcp(8123), tcp(9000)],
      volumes: ['/var/lib/clickhouse'],
      variables: {
        CLICKHOUSE_PASSWORD: '',
        CLICKHOUSE_USER: 'default',
        CLICKHOUSE_DB: '',
        CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '0',
      },
    },
  },
  {
    slug: 'minio',
    name: 'MinIO',
    category: 'databases',
    tags: ['s3', 'object-storage'],
    image: 'minio/minio',
    tag: 'RELEASE.2025-01-20T14-49-07Z',
    version: '2025-01-20',
    description: 'S3-compatible object storage server with a web console, storing buckets on a single volume.',
    about:
      'MinIO implements the Amazon S3 API. This template runs `minio server /data --console-address :9001`: ' +
      'the S3 API on 9000, the web console on 9001, objects in `/data`.',
    firstSteps: [
      'Set `MINIO_ROOT_USER` and bind a Core secret (8 characters or more) to `MINIO_ROOT_PASSWORD`. Never keep the ' +
        'documented fallback `minioadmin`.',
      'Open the console on port 9001 and create a bucket and an access key for your application.',
      'Use it: `mc alias set core http://<host>:9000 <user> <password>`.',
    ],
    cpu: '500m',
    memory: '1Gi',
    ports: [tcp(9000), tcp(9001)],
    volumes: [vol('data', '/data')],
    env: [],
    envSchema: [
      v('MINIO_ROOT_USER', 'minioadmin', 'Root access key (user name)'),
      v('MINIO_ROOT_PASSWORD', '', 'Root secret key (bind a Core secret)', true),
    ],
    command: ['server', '/data', '--console-address', ':9001'],
    reference: {
      source: 'https://min.io/docs/minio/container/index.html',
      checked: 'recalled',
      ports: [tcp(9000), tcp(9001)],
      volumes: ['/data'],
      variables: { MINIO_ROOT_USER: 'minioadmin', MINIO_ROOT_PASSWORD: 'minioadmin' },
      note: 'The documented fallback credential minioadmin is deliberately not used as a default.',
    },
  },
  // ---------------------------------------------------------------- Monitoring
  {
    slug: 'prometheus',
    name: 'Prometheus',
    category: 'monitoring',
    tags: ['metrics', 'alerting'],
    image: 'prom/prometheus',
    tag: 'v3.1.0',
    version: '3.1.0',
    description: 'Time-series metrics database that scrapes targets over HTTP and evaluates alerting rules.',
    about:
      'Prometheus scrapes metrics from HTTP endpoints, stores them as time series in `/prometheus` and answers ' +
      "PromQL queries on port 9090. Scrape targets are listed in `/etc/prometheus/prometheus.yml`; the image's " +
      'default file scrapes Prometheus itself.',
    firstSteps: [
      'Open `http://<host>:9090` and run the query `up`.',
      'Mount your own `/etc/prometheus/prometheus.yml` with `scrape_configs` for your targets (e.g. Node Exporter on 9100).',
      'Retention defaults to 15 days; change it with `--storage.tsdb.retention.time` in the command.',
    ],
    cpu: '500m',
    memory: '2Gi',
    ports: [tcp(9090)],
    volumes: [vol('data', '/prometheus')],
    env: [],
    envSchema: [],
    reference: {
      source: 'https://prometheus.io/docs/prometheus/latest/installation/',
      checked: 'recalled',
      ports: [tcp(9090)],
      volumes: ['/prometheus'],
      variables: {},
    },
  },
  {
    slug: 'grafana',
    name: 'Grafana',
    category: 'monitoring',
    tags: ['dashboards', 'metrics'],
    featured: true,
    image: 'grafana/grafana',
    tag: '11.4.0',
    version: '11.4.0',
    description: 'Dashboards, exploration and alerting over Prometheus, Loki and many other data sources.',
    about:
      'Grafana builds dashboards and alerts over data sources such as Prometheus, Loki, PostgreSQL and ' +
      'ClickHouse. It listens on port 3000 and keeps its SQLite database and plugins in `/var/lib/grafana`. Every ' +
      'setting of grafana.ini can be given as `GF_<SECTION>_<KEY>`.',
    firstSteps: [
      'Bind a Core secret to `GF_SECURITY_ADMIN_PASSWORD` (otherwise the documented default `admin` applies).',
      'Sign in at `http://<host>:3000` as `GF_SECURITY_ADMIN_USER` (default `admin`).',
      'Add a data source (Connections → Data sources), e.g. Prometheus at `http://prometheus:9090`.',
      'Behind a proxy set `GF_SERVER_ROOT_URL` to the public URL.',
    ],
    cpu: '250m',
    memory: '512Mi',
    ports: [tcp(3000)],
    volumes: [vol('data', '/var/lib/grafana')],
    env: [],
    envSchema: [
      v('GF_SECURITY_ADMIN_PASSWORD', '', 'Password of the first administrator (bind a Core secret)', true),
      v('GF_SECURITY_ADMIN_USER', 'admin', 'Name of the first administrator'),
      v('GF_SERVER_ROOT_URL', '', 'Public URL when served behind a proxy'),
      v('GF_INSTALL_PLUGINS', '', 'Comma-separated plugins to install at start'),
    ],
    reference: {
      source: 'https://grafana.com/docs/grafana/latest/setup-grafana/configure-docker/',
      checked: 'searched',
      ports: [tcp(3000)],
      volumes: ['/var/lib/grafana'],
      variables: {
        GF_SECURITY_ADMIN_PASSWORD: 'admin',
        GF_SECURITY_ADMIN_USER: 'admin',
        GF_SERVER_ROOT_URL: '',
        GF_INSTALL_PLUGINS: '',
      },
      note:
        'Port, data path, GF_SECURITY_ADMIN_PASSWORD, GF_SERVER_ROOT_URL and GF_INSTALL_PLUGINS read in the Docker ' +
        'installation page (GF_PATHS_DATA=/var/lib/grafana); the default password "admin" is deliberately not used.',
    },
  },
  {
    slug: 'loki',
    name: 'Loki',
    category: 'monitoring',
    tags: ['logs'],
    image: 'grafana/loki',
    tag: '3.3.2',
    version: '3.3.2',
    description: 'Log aggregation that indexes only labels, queried with LogQL; push logs with Promtail or Alloy.',
    about:
      'Loki stores log lines compressed in chunks and indexes only their labels; it is queried with LogQL, ' +
      "usually from Grafana. This template runs the single-binary mode with the image's " +
      '`/etc/loki/local-config.yaml` (filesystem storage under `/loki`): HTTP on 3100, gRPC on 9096.',
    firstSteps: [
      'Check readiness: `curl http://<host>:3100/ready`.',
      'Ship logs with Promtail, Grafana Alloy or the push API `POST /loki/api/v1/push`.',
      'Add Loki as a data source in Grafana with the URL `http://loki:3100`.',
    ],
    cpu: '500m',
    memory: '1Gi',
    ports: [tcp(3100), tcp(9096)],
    volumes: [vol('data', '/loki')],
    env: [],
    envSchema: [],
    command: ['-config.file=/etc/loki/local-config.yaml'],
    reference: {
      source: 'https://grafana.com/docs/loki/latest/setup/install/docker/',
      checked: 'recalled',
      ports: [tcp(3100), tcp(9096)],
      volumes: ['/loki'],
      variables: {},
      note: "gRPC 9096 is the port in the image's local-config.yaml (the Loki default otherwise is 9095).",
    },
  },
  {
    slug: 'uptime-kuma',
    name: 'Uptime Kuma',
    category: 'monitoring',
    tags: ['uptime', 'alerting'],
    image: 'louislam/uptime-kuma',
    tag: '1.23.16',
    version: '1.23.16',
    description: 'Self-hosted uptime monitor for HTTP, TCP, DNS and ping checks, with status pages and notifications.',
    about:
      'Uptime Kuma checks websites and services (HTTP(S), TCP, ping, DNS, Docker, …) and notifies through ' +
      'dozens of channels; it also publishes status pages. It listens on 3001 and keeps its SQLite database in ' +
      '`/app/data`.',
    firstSteps: [
      'Open `http://<host>:3001` and create the administrator account (the first visitor does).',
      'Add a monitor, then a notification (e-mail, Slack, Matrix, …).',
      'Do not put `/app/data` on NFS: the SQLite database needs local file locking.',
    ],
    cpu: '250m',
    memory: '256Mi',
    ports: [tcp(3001)],
    volumes: [vol('data', '/app/data')],
    env: [],
    envSchema: [
      v('UPTIME_KUMA_PORT', '3001', 'Port the server listens on'),
      v('DATA_DIR', './data/', 'Directory of the database (relative to /app)'),
    ],
    reference: {
      source: 'https://github.com/louislam/uptime-kuma/wiki/Environment-Variables',
      checked: 'searched',
      ports: [tcp(3001)],
      volumes: ['/app/data'],
      variables: { UPTIME_KUMA_PORT: '3001', DATA_DIR: './data/' },
      note: 'Port 3001, /app/data and the data directory ./data/ seen in the searched material; UPTIME_KUMA_PORT recalled.',
    },
  },
  {
    slug: 'node-exporter',
    name: 'Node Exporter',
    category: 'monitoring',
    tags: ['metrics', 'host'],
    image: 'prom/node-exporter',
    tag: 'v1.8.2',
    version: '1.8.2',
    description: 'Prometheus exporter of host metrics: CPU, memory, disks, filesystems and network interfaces.',
    about:
      'Node Exporter exposes the hardware and kernel metrics of a Linux host on `/metrics`, port 9100. To see ' +
      "the host rather than its own container it reads the host's root filesystem mounted read-only at `/host` " +
      '(`--path.rootfs=/host`).',
    firstSteps: [
      'Mount the host root filesystem read-only at `/host` (the volume of this template).',
      'Check: `curl http://<host>:9100/metrics | grep node_cpu_seconds_total`.',
      'Add the target `<host>:9100` to a Prometheus scrape job.',
    ],
    cpu: '100m',
    memory: '128Mi',
    ports: [tcp(9100)],
    volumes: [vol('rootfs', '/host')],
    env: [],
    envSchema: [],
    command: ['--path.rootfs=/host'],
    reference: {
      source: 'https://github.com/prometheus/node_exporter#docker',
      checked: 'recalled',
      ports: [tcp(9100)],
      volumes: ['/host'],
      variables: {},
    },
  },
  // ---------------------------------------------------------------- Web & Proxies
  {
    slug: 'nginx',
    name: 'NGINX',
    category: 'web',
    tags: ['http', 'proxy'],
    image: 'nginx',
    tag: '1.27',
    version: '1.27',
    description: 'High-performance web server and reverse proxy serving static files from /usr/share/nginx/html.',
    about:
      'NGINX serves static content and proxies HTTP. The official image serves `/usr/share/nginx/html` on port ' +
      '80; configuration templates in `/etc/nginx/templates` (`*.template`) are rendered with environment ' +
      'variables into `/etc/nginx/conf.d` at start.',
    firstSteps: [
      'Put your site into the volume mounted at `/usr/share/nginx/html`.',
      'For a reverse proxy, mount a `default.conf.template` into `/etc/nginx/templates` using `${VARIABLES}`.',
      "Set `NGINX_ENTRYPOINT_QUIET_LOGS` to `1` to silence the entrypoint's start-up messages.",
    ],
    cpu: '100m',
    memory: '128Mi',
    ports: [tcp(80)],
    volumes: [vol('html', '/usr/share/nginx/html')],
    env: [],
    envSchema: [
      v('NGINX_ENVSUBST_TEMPLATE_DIR', '/etc/nginx/templates', 'Directory of the configuration templates'),
      v('NGINX_ENVSUBST_OUTPUT_DIR', '/etc/nginx/conf.d', 'Where the rendered templates are written'),
      v('NGINX_ENTRYPOINT_QUIET_LOGS', '', "Any value silences the entrypoint's messages"),
    ],
    reference: {
      source: 'https://hub.docker.com/_/nginx',
      checked: 'recalled',
      ports: [tcp(80)],
      volumes: ['/usr/share/nginx/html'],
      variables: {
        NGINX_ENVSUBST_TEMPLATE_DIR: '/etc/nginx/templates',
        NGINX_ENVSUBST_OUTPUT_DIR: '/etc/nginx/conf.d',
        NGINX_ENTRYPOINT_QUIET_LOGS: '',
      },
    },
  },
  {
    slug: 'caddy',
    name: 'Caddy',
    category: 'web',
    tags: ['http', 'proxy', 'tls'],
    image: 'caddy',
    tag: '2.9',
    version: '2.9',
    description: 'Web server with automatic HTTPS: obtains and renews certificates for every site it serves.',
    about:
      'Caddy serves sites and reverse proxies with automatic HTTPS (ACME certificates, HTTP/3). It listens on ' +
      '80 and 443 (TCP, and UDP for HTTP/3) and reads `/etc/caddy/Caddyfile`. Certificates and keys live in ' +
      '`/data` (`XDG_DATA_HOME`), the autosaved configuration in `/config` (`XDG_CONFIG_HOME`): keep both.',
    firstSteps: [
      'Mount a Caddyfile at `/etc/caddy/Caddyfile`, e.g. `example.com { reverse_proxy app:8080 }`.',
      "Point the domain's DNS at the instance; ports 80 and 443 must be reachable for the ACME challenge.",
      'Never drop the `/data` volume: it holds the certificates and their private keys.',
    ],
    cpu: '100m',
    memory: '128Mi',
    ports: [tcp(80), tcp(443), udp(443)],
    volumes: [vol('data', '/data'), vol('config', '/config')],
    env: [],
    envSchema: [],
    reference: {
      source: 'https://hub.docker.com/_/caddy',
      checked: 'recalled',
      ports: [tcp(80), tcp(443), udp(443)],
      volumes: ['/data', '/config'],
      variables: { XDG_DATA_HOME: '/data', XDG_CONFIG_HOME: '/config' },
      note: 'The two XDG variables are set by the image itself; the template does not override them.',
    },
  },
  {
    slug: 'traefik',
    name: 'Traefik',
    category: 'web',
    tags: ['proxy', 'ingress'],
    image: 'traefik',
    tag: 'v3.3',
    version: '3.3',
    description: 'Cloud-native edge router that discovers routes from providers and load-balances HTTP and TCP.',
    about:
      'Traefik routes HTTP and TCP traffic to services it discovers from providers (Kubernetes, Docker, files). ' +
      'This template listens on 80 for traffic and 8080 for the API and dashboard (`--api.insecure`), and reads ' +
      'dynamic configuration from files in `/etc/traefik/dynamic`. Static options can also be given as ' +
      '`TRAEFIK_*` variables.',
    firstSteps: [
      'Put router and service definitions (YAML) into `/etc/traefik/dynamic`; they are reloaded on change.',
      'Open the dashboard at `http://<host>:8080/dashboard/`; do not expose 8080 publicly.',
      'Raise verbosity with `TRAEFIK_LOG_LEVEL=DEBUG`.',
    ],
    cpu: '250m',
    memory: '256Mi',
    ports: [tcp(80), tcp(8080)],
    volumes: [vol('dynamic', '/etc/traefik/dynamic')],
    env: [],
    envSchema: [v('TRAEFIK_LOG_LEVEL', 'ERROR', 'Log level: DEBUG, INFO, WARN, ERROR')],
    command: [
      '--api.insecure=true',
      '--entrypoints.web.address=:80',
      '--providers.file.directory=/etc/traefik/dynamic',
      '--providers.file.watch=true',
    ],
    reference: {
      source: 'https://doc.traefik.io/traefik/getting-started/quick-start/',
      checked: 'recalled',
      ports: [tcp(80), tcp(8080)],
      volumes: ['/etc/traefik/dynamic'],
      variables: { TRAEFIK_LOG_LEVEL: 'ERROR' },
      note: "/etc/traefik/dynamic is the directory this template's command names for the file provider.",
    },
  },
  {
    slug: 'wordpress',
    name: 'WordPress',
    category: 'web',
    tags: ['cms', 'php'],
    image: 'wordpress',
    tag: '6.7',
    version: '6.7',
    description: 'The WordPress CMS on Apache and PHP; needs a MySQL or MariaDB database (e.g. the MariaDB template).',
    about:
      'WordPress is a PHP content management system. The official image runs Apache on port 80 with the ' +
      'WordPress files (themes, plugins, uploads) in `/var/www/html`, and needs a MySQL-compatible database.',
    firstSteps: [
      'Deploy the MariaDB template with `MARIADB_DATABASE=wordpress` and a user.',
      "Set `WORDPRESS_DB_HOST` (e.g. `mariadb:3306`) and `WORDPRESS_DB_USER`, and bind the user's password secret " +
        'to `WORDPRESS_DB_PASSWORD`.',
      'Open port 80 and finish the installation wizard.',
    ],
    cpu: '250m',
    memory: '512Mi',
    ports: [tcp(80)],
    volumes: [vol('html', '/var/www/html')],
    env: [],
    envSchema: [
      v('WORDPRESS_DB_HOST', '', 'Database host and port, e.g. mariadb:3306', true),
      v('WORDPRESS_DB_USER', '', 'Database user', true),
      v('WORDPRESS_DB_PASSWORD', '', 'Database password (bind a Core secret)', true),
      v('WORDPRESS_DB_NAME', 'wordpress', 'Database name'),
      v('WORDPRESS_TABLE_PREFIX', 'wp_', 'Prefix of the WordPress tables'),
    ],
    reference: {
      source: 'https://hub.docker.com/_/wordpress',
      checked: 'recalled',
      ports: [tcp(80)],
      volumes: ['/var/www/html'],
      variables: {
        WORDPRESS_DB_HOST: '',
        WORDPRESS_DB_USER: '',
        WORDPRESS_DB_PASSWORD: '',
        WORDPRESS_DB_NAME: 'wordpress',
        WORDPRESS_TABLE_PREFIX: 'wp_',
      },
      note: 'The image falls back to placeholder values for host and user; the template requires them instead.',
    },
  },
  {
    slug: 'ghost',
    name: 'Ghost',
    category: 'web',
    tags: ['cms', 'blog'],
    image: 'ghost',
    tag: '5.107',
    version: '5.107',
    description: 'Node.js publishing platform for blogs and newsletters with memberships and an editor.',
    about:
      'Ghost is a publishing platform (posts, pages, newsletters, paid memberships). It listens on 2368 and ' +
      'keeps images, themes and, with SQLite, its database in `/var/lib/ghost/content`. Settings of its ' +
      'configuration are variables with `__` as the separator (`database__client`).',
    firstSteps: [
      'Set `url` to the public address (e.g. `https://blog.example.com`); Ghost builds every link from it.',
      'In production Ghost expects MySQL 8: set `database__client=mysql`, `database__connection__host`, ' +
        '`database__connection__user`, `database__connection__database` and bind a secret to ' +
        '`database__connection__password`. For a trial, `NODE_ENV=development` uses SQLite.',
      'Open `<url>/ghost` and create the owner account.',
    ],
    cpu: '250m',
    memory: '512Mi',
    ports: [tcp(2368)],
    volumes: [vol('content', '/var/lib/ghost/content')],
    env: [],
    envSchema: [
      v('url', '', 'Public URL of the site', true),
      v('NODE_ENV', 'production', 'production (MySQL) or development (SQLite)'),
      v('database__client', '', 'mysql in production'),
      v('database__connection__host', '', 'Database host'),
      v('database__connection__user', '', 'Database user'),
      v('database__connection__password', '', 'Database password (bind a Core secret)'),
      v('database__connection__database', '', 'Database name'),
    ],
    reference: {
      source: 'https://hub.docker.com/_/ghost',
      checked: 'recalled',
      ports: [tcp(2368)],
      volumes: ['/var/lib/ghost/content'],
      variables: {
        url: '',
        NODE_ENV: 'production',
        database__client: '',
        database__connection__host: '',
        database__connection__user: '',
        database__connection__password: '',
        database__connection__database: '',
      },
    },
  },
  // ---------------------------------------------------------------- Developer Tools
  {
    slug: 'gitea',
    name: 'Gitea',
    category: 'dev-tools',
    tags: ['git', 'scm'],
    featured: true,
    image: 'gitea/gitea',
    tag: '1.23',
    version: '1.23',
    description: 'Lightweight self-hosted Git forge: repositories, pull requests, issues, packages and Actions.',
    about:
      'Gitea is a self-hosted Git service written in Go. The web UI listens on 3000 and SSH on 22; ' +
      'repositories, configuration (`/data/gitea/conf/app.ini`) and the SQLite database live in `/data`. Any ' +
      'app.ini setting can be given as `GITEA__<section>__<KEY>`.',
    firstSteps: [
      'Set `GITEA__server__ROOT_URL` to the public URL, then open port 3000 and finish the installer.',
      'SQLite is the default (`GITEA__database__DB_TYPE=sqlite3`); for MySQL or other servers also set the ' +
        '`GITEA__database__*` host, name and user, binding the password to a Core secret.',
      'The first account registered becomes the administrator.',
    ],
    cpu: '250m',
    memory: '512Mi',
    ports: [tcp(3000), tcp(22)],
    volumes: [vol('data', '/data')],
    env: [],
    envSchema: [
      v('USER_UID', '1000', 'Uid of the git user inside the container'),
      v('USER_GID', '1000', 'Gid of the git user inside the container'),
      v('GITEA__database__DB_TYPE', 'sqlite3', 'Database type: sqlite3, mysql, postgres or mssql'),
      v('GITEA__server__ROOT_URL', '', 'Public URL of the web UI'),
    ],
    reference: {
      source: 'https://docs.gitea.com/installation/install-with-docker',
      checked: 'recalled',
      ports: [tcp(3000), tcp(22)],
      volumes: ['/data'],
      variables: {
        USER_UID: '1000',
        USER_GID: '1000',
        GITEA__database__DB_TYPE: 'sqlite3',
        GITEA__server__ROOT_URL: '',
      },
    },
  },
  {
    slug: 'woodpecker',
    name: 'Woodpecker CI',
    category: 'dev-tools',
    tags: ['ci'],
    image: 'woodpeckerci/woodpecker-server',
    tag: 'v3.0.1',
    version: '3.0.1',
    description: 'Container-native CI server (a Drone fork) that runs pipelines from .woodpecker.yaml on agents.',
    about:
      'Woodpecker runs CI pipelines defined in `.woodpecker.yaml` inside containers. This is the server: the ' +
      'web UI and API on 8000, the gRPC endpoint agents connect to on 9000, its SQLite database in ' +
      '`/var/lib/woodpecker`. It needs a forge (Gitea, GitHub, GitLab, …) for sign-in and at least one agent.',
    firstSteps: [
      'Set `WOODPECKER_HOST` to the public URL (no trailing slash).',
      'Bind a Core secret to `WOODPECKER_AGENT_SECRET`; agents use the same secret.',
      'Connect a forge, e.g. Gitea: `WOODPECKER_GITEA=true`, `WOODPECKER_GITEA_URL`, `WOODPECKER_GITEA_CLIENT`, ' +
        'and bind the OAuth secret to `WOODPECKER_GITEA_SECRET`.',
    ],
    cpu: '250m',
    memory: '256Mi',
    ports: [tcp(8000), tcp(9000)],
    volumes: [vol('data', '/var/lib/woodpecker')],
    env: [],
    envSchema: [
      v('WOODPECKER_HOST', '', 'Public URL of the server', true),
      v('WOODPECKER_AGENT_SECRET', '', 'Shared secret of server and agents (bind a Core secret)', true),
      v('WOODPECKER_OPEN', 'false', 'Whether anyone with a forge account may register'),
      v('WOODPECKER_GITEA', 'false', 'Use Gitea as the forge'),
      v('WOODPECKER_GITEA_URL', '', 'URL of the Gitea instance'),
      v('WOODPECKER_GITEA_CLIENT', '', 'OAuth client id'),
      v('WOODPECKER_GITEA_SECRET', '', 'OAuth client secret (bind a Core secret)'),
    ],
    reference: {
      source: 'https://woodpecker-ci.org/docs/administration/installation/docker-compose',
      checked: 'searched',
      ports: [tcp(8000), tcp(9000)],
      volumes: ['/var/lib/woodpecker'],
      variables: {
        WOODPECKER_HOST: '',
        WOODPECKER_AGENT_SECRET: '',
        WOODPECKER_OPEN: 'false',
        WOODPECKER_GITEA: 'false',
        WOODPECKER_GITEA_URL: '',
        WOODPECKER_GITEA_CLIENT: '',
        WOODPECKER_GITEA_SECRET: '',
      },
    },
  },
  {
    slug: 'registry',
    name: 'Docker Registry',
    category: 'dev-tools',
    tags: ['oci', 'registry'],
    image: 'registry',
    tag: '2.8',
    version: '2.8',
    description: 'The CNCF Distribution registry: store and serve your own OCI and Docker images.',
    about:
      'The Distribution registry stores OCI and Docker images and serves the registry HTTP API on port 5000. ' +
      'Layers are kept in `/var/lib/registry`. Every configuration option can be given as a `REGISTRY_*` ' +
      'variable.',
    firstSteps: [
      'Push: `docker tag alpine <host>:5000/alpine && docker push <host>:5000/alpine` (TLS or an insecure-registry ' +
        'setting on the client is needed).',
      'With several replicas bind the same Core secret to `REGISTRY_HTTP_SECRET`.',
      'For authentication set `REGISTRY_AUTH=htpasswd` with `REGISTRY_AUTH_HTPASSWD_REALM` and ' +
        '`REGISTRY_AUTH_HTPASSWD_PATH`.',
    ],
    cpu: '100m',
    memory: '256Mi',
    ports: [tcp(5000)],
    volumes: [vol('data', '/var/lib/registry')],
    env: [],
    envSchema: [
      v('REGISTRY_HTTP_SECRET', '', 'Secret that signs upload state (bind a Core secret)'),
      v('REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY', '/var/lib/registry', 'Where layers are stored'),
      v('REGISTRY_AUTH', '', 'Authentication scheme, e.g. htpasswd'),
      v('REGISTRY_AUTH_HTPASSWD_REALM', '', 'Realm of htpasswd authentication'),
      v('REGISTRY_AUTH_HTPASSWD_PATH', '', 'Path of the htpasswd file'),
    ],
    reference: {
      source: 'https://distribution.github.io/distribution/about/deploying/',
      checked: 'recalled',
      ports: [tcp(5000)],
      volumes: ['/var/lib/registry'],
      variables: {
        REGISTRY_HTTP_SECRET: '',
        REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY: '/var/lib/registry',
        REGISTRY_AUTH: '',
        REGISTRY_AUTH_HTPASSWD_REALM: '',
        REGISTRY_AUTH_HTPASSWD_PATH: '',
      },
    },
  },
  {
    slug: 'code-server',
    name: 'code-server',
    category: 'dev-tools',
    tags: ['ide', 'editor'],
    image: 'codercom/code-server',
    tag: '4.96.4',
    version: '4.96.4',
    description: 'VS Code in the browser by Coder, with a terminal and extensions, running as the user coder.',
    about:
      'code-server runs VS Code on a server and serves it to the browser on port 8080. It runs as the user ' +
      '`coder`; settings, extensions and projects under `/home/coder` survive restarts on the volume.',
    firstSteps: [
      'Bind a Core secret to `PASSWORD` (or a bcrypt/argon2 hash to `HASHED_PASSWORD`).',
      'Open `http://<host>:8080` and sign in with that password.',
      'Clone projects into `/home/coder/project`.',
    ],
    cpu: '1',
    memory: '2Gi',
    ports: [tcp(8080)],
    volumes: [vol('home', '/home/coder')],
    env: [],
    envSchema: [
      v('PASSWORD', '', 'Password of the web UI (bind a Core secret)', true),
      v('HASHED_PASSWORD', '', 'Hashed password instead of PASSWORD (bind a Core secret)'),
    ],
    reference: {
      source: 'https://coder.com/docs/code-server/install#docker',
      checked: 'recalled',
      ports: [tcp(8080)],
      volumes: ['/home/coder'],
      variables: { PASSWORD: '', HASHED_PASSWORD: '' },
      note:
        'The docs mount /home/coder/.config, /home/coder/.local and /home/coder/project; the template mounts ' +
        'their parent /home/coder.',
    },
  },
  {
    slug: 'sonarqube',
    name: 'SonarQube',
    category: 'dev-tools',
    tags: ['quality', 'static-analysis'],
    image: 'sonarqube',
    tag: '10.7-community',
    version: '10.7',
    description: 'Continuous code inspection: bugs, vulnerabilities, code smells and coverage for 30 languages.',
    about:
      'SonarQube Community analyses source code for bugs, vulnerabilities and code smells and tracks quality ' +
      'gates. It listens on 9000 and keeps data, plugins and logs under `/opt/sonarqube`. The embedded H2 ' +
      'database is for evaluation only; production needs an external database set with `SONAR_JDBC_URL`.',
    firstSteps: [
      'On Linux nodes `vm.max_map_count` must be at least 524288 (Elasticsearch inside SonarQube needs it).',
      'Set `SONAR_JDBC_URL` and `SONAR_JDBC_USERNAME`, and bind a Core secret to `SONAR_JDBC_PASSWORD`.',
      'Open port 9000, sign in as admin/admin and change the password at once.',
    ],
    cpu: '2',
    memory: '4Gi',
    ports: [tcp(9000)],
    volumes: [
      vol('data', '/opt/sonarqube/data'),
      vol('extensions', '/opt/sonarqube/extensions'),
      vol('logs', '/opt/sonarqube/logs'),
    ],
    env: [],
    envSchema: [
      v('SONAR_JDBC_URL', '', 'JDBC URL of the database (empty = embedded H2, evaluation only)'),
      v('SONAR_JDBC_USERNAME', '', 'Database user'),
      v('SONAR_JDBC_PASSWORD', '', 'Database password (bind a Core secret)'),
    ],
    reference: {
      source:
        'https://docs.sonarsource.com/sonarqube/latest/setup-and-upgrade/install-the-server/installing-sonarqube-from-docker/',
      checked: 'recalled',
      ports: [tcp(9000)],
      volumes: ['/opt/sonarqube/data', '/opt/sonarqube/extensions', '/opt/sonarqube/logs'],
      variables: { SONAR_JDBC_URL: '', SONAR_JDBC_USERNAME: '', SONAR_JDBC_PASSWORD: '' },
    },
  },
  // ---------------------------------------------------------------- Enterprise AI (private, fictional)
  {
    slug: 'llama-enterprise',
    name: 'Llama Enterprise Gateway',
    category: 'enterprise-ai',
    tags: ['llm', 'gateway', 'gpu'],
    image: 'registry.example.com/enterprise/llama-gateway',
    tag: '2.1.0',
    version: '2.1.0',
    description: 'Fictional example of a licensed template: an LLM gateway visible only to organizations with a grant.',
    about:
      '**This template is fictional.** It is an example of a licensed template in a private category: only ' +
      'organizations with a grant for "Enterprise AI" see it, and its image (`registry.example.com`) does not ' +
      'exist. It shows what such an entry looks like: an OpenAI-compatible gateway in front of licensed models.',
    firstSteps: [
      'Nothing to deploy: the image does not exist.',
      'To publish a real licensed template, create a private category, grant it to organizations and add the ' +
        'template with the registry credentials of your vendor.',
    ],
    cpu: '4',
    memory: '16Gi',
    gpu: 2,
    vram: '48Gi',
    ports: [tcp(8080)],
    volumes: [vol('models', '/models')],
    env: [],
    envSchema: [
      v('LICENSE_KEY', '', 'Vendor licence key (example; bind a Core secret)', true),
      v('MODEL_NAME', 'llama-3.1-70b-instruct', 'Model the gateway serves (example)'),
    ],
    reference: {
      source: 'fictional',
      checked: 'fictional',
      ports: [tcp(8080)],
      volumes: ['/models'],
      variables: { LICENSE_KEY: '', MODEL_NAME: 'llama-3.1-70b-instruct' },
    },
  },
  {
    slug: 'private-rag',
    name: 'Private RAG Stack',
    category: 'enterprise-ai',
    tags: ['rag', 'llm', 'embeddings'],
    image: 'registry.example.com/enterprise/rag-stack',
    tag: '1.4.2',
    version: '1.4.2',
    description:
      'Fictional example of a private template: a retrieval-augmented generation stack for granted organizations.',
    about:
      '**This template is fictional.** It illustrates a private, licensed template: retrieval-augmented ' +
      'generation over an organization\'s documents. Only organizations with a grant for "Enterprise AI" see it; ' +
      'the image (`registry.example.com`) does not exist.',
    firstSteps: [
      'Nothing to deploy: the image does not exist.',
      'A real stack of this kind can be assembled from the public templates: Qdrant, Text Embeddings Inference, ' +
        'vLLM or Ollama, and Open WebUI.',
    ],
    cpu: '2',
    memory: '8Gi',
    gpu: 1,
    vram: '24Gi',
    ports: [tcp(8000)],
    volumes: [vol('index', '/var/lib/rag')],
    env: [],
    envSchema: [
      v('LICENSE_KEY', '', 'Vendor licence key (example; bind a Core secret)', true),
      v('VECTOR_DB_URL', '', 'URL of the vector database, e.g. http://qdrant:6333 (example)'),
    ],
    reference: {
      source: 'fictional',
      checked: 'fictional',
      ports: [tcp(8000)],
      volumes: ['/var/lib/rag'],
      variables: { LICENSE_KEY: '', VECTOR_DB_URL: '' },
    },
  },
  {
    slug: 'speech-to-text',
    name: 'Speech to Text',
    category: 'enterprise-ai',
    tags: ['audio', 'transcription', 'gpu'],
    image: 'registry.example.com/enterprise/whisper-server',
    tag: '3.0.0',
    version: '3.0.0',
    description:
      'Fictional example of a licensed template: a transcription service shown only to organizations with a grant.',
    about:
      '**This template is fictional.** It is an example of a licensed template in a private category: a ' +
      'speech-to-text service. Only organizations with a grant for "Enterprise AI" see it; the image ' +
      '(`registry.example.com`) does not exist.',
    firstSteps: [
      'Nothing to deploy: the image does not exist.',
      'Use it to try grants: an organization without one neither lists nor fetches this template.',
    ],
    cpu: '2',
    memory: '8Gi',
    gpu: 1,
    vram: '16Gi',
    ports: [tcp(9000)],
    volumes: [vol('models', '/models')],
    env: [],
    envSchema: [
      v('LICENSE_KEY', '', 'Vendor licence key (example; bind a Core secret)', true),
      v('WHISPER_MODEL', 'large-v3', 'Model size (example)'),
    ],
    reference: {
      source: 'fictional',
      checked: 'fictional',
      ports: [tcp(9000)],
      volumes: ['/models'],
      variables: { LICENSE_KEY: '', WHISPER_MODEL: 'large-v3' },
    },
  },
];

const fence = (s: string) => `\`${s}\``;

/** The Markdown documentation of a template: what it is, first steps, the variables that matter, ports, storage. */
export function documentationOf(t: DemoTemplate): string {
  const lines: string[] = [`# ${t.name}`, '', t.about, ''];
  if (t.reference.checked !== 'fictional') {
    lines.push(`Image: ${fence(`${t.image}:${t.tag}`)}. Upstream documentation: <${t.reference.source}>.`, '');
  }
  lines.push('## First steps', '', ...t.firstSteps.map((s, i) => `${i + 1}. ${s}`), '');
  lines.push('## Configuration', '');
  // The declared variables are listed once, from the template's environment schema, by every page and API that
  // shows the template (the Hub's and Core's template pages, get_template): not a second time in its prose.
  if (t.envSchema.length === 0) {
    lines.push('This template declares no variables.', '');
  } else {
    const required = t.envSchema.filter((e) => e.required).map((e) => fence(e.name));
    lines.push(
      `The template declares ${t.envSchema.length === 1 ? 'one variable' : `${t.envSchema.length} variables`}, listed ` +
        `with their defaults in its environment schema${required.length > 0 ? `; ${required.join(', ')} must be set` : ''}.`,
      '',
    );
  }
  const others = Object.keys(t.reference.variables).filter((n) => !t.envSchema.some((e) => e.name === n));
  if (others.length > 0) {
    lines.push(
      `Also documented for the image, not declared by this template: ${others.map((n) => `${fence(n)} (${fence(t.reference.variables[n]!)})`).join(', ')}.`,
      '',
    );
  }
  const credentials = t.envSchema.filter((e) => CREDENTIAL_NAME_RE.test(e.name)).map((e) => fence(e.name));
  if (credentials.length > 0) {
    lines.push(
      `Credentials (${credentials.join(', ')}) are bound to Core secrets: Core refuses a literal value for a ` +
        'variable whose name contains PASSWORD, SECRET, TOKEN, KEY or CREDENTIAL. Create the secret on the instance ' +
        'and bind it when deploying.',
      '',
    );
  }
  if (t.command && t.command.length > 0) lines.push(`Command: ${fence(t.command.join(' '))}`, '');
  lines.push('## Ports and storage', '');
  for (const p of t.ports) lines.push(`- ${p.containerPort}/${p.protocol}`);
  for (const m of t.volumes) lines.push(`- volume ${fence(m.name)} at ${fence(m.mountPath)}`);
  const gpu = t.gpu ?? 0;
  lines.push('', `Requests: ${t.cpu} CPU, ${t.memory} memory${gpu ? `, ${gpu} GPU with ${t.vram} VRAM` : ''}.`, '');
  return lines.join('\n');
}
