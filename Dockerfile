# gradstep: the frontend is built with Node, then a slim Python image serves it as a non-root user.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 GRADSTEP_HOST=0.0.0.0 GRADSTEP_PORT=8000
WORKDIR /app
COPY pyproject.toml README.md ./
COPY engine/ engine/
COPY server/ server/
COPY --from=frontend /src/server/static/ server/static/
RUN pip install --no-cache-dir . && useradd --system --no-create-home --shell /usr/sbin/nologin gradstep
USER gradstep
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/api/v1/health', timeout=2).status != 200)"
CMD ["gradstep", "serve", "--host", "0.0.0.0", "--port", "8000"]
