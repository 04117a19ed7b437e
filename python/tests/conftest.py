import os
import pathlib
import shutil
import subprocess

import pytest

import aesx

REPO = pathlib.Path(__file__).resolve().parents[2]
VECTORS = REPO / "vectors" / "wycheproof"


@pytest.fixture(scope="session")
def cli():
    """The `aesx` command: $AESX_CLI, or the workspace's build (built here
    with cargo if it is missing)."""
    env = os.environ.get("AESX_CLI")
    if env:
        return env
    for p in (REPO / "target" / "release" / "aesx", REPO / "target" / "debug" / "aesx"):
        if p.exists():
            return str(p)
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.fail("no aesx binary and no cargo to build one (set AESX_CLI)")
    subprocess.run([cargo, "build", "-q", "-p", "aesx-cli"], cwd=REPO, check=True)
    return str(REPO / "target" / "debug" / "aesx")


@pytest.fixture(params=aesx.backends())
def backend(request):
    """Every backend this machine runs."""
    return request.param


# --- an S3 server on loopback, for aesx.dask on object storage -------------


@pytest.fixture(scope="session")
def s3_server():
    """moto's S3 server (the one s3fs's own suite uses), on 127.0.0.1 and a
    free port, for the whole session; stopped at the end. Reached through
    s3fs with an endpoint URL, as a user reaches MinIO or Ceph. Skipped when
    moto[server] or s3fs is missing, unless AESX_REQUIRE_S3=1 (CI), where
    that is a failure."""
    try:
        import s3fs  # noqa: F401
        from moto.server import ThreadedMotoServer
    except ImportError as e:
        if os.environ.get("AESX_REQUIRE_S3") == "1":
            pytest.fail(f"AESX_REQUIRE_S3=1 but {e}: pip install 'moto[server]' s3fs")
        pytest.skip(f"no S3 test server: {e}")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        assert host == "127.0.0.1", host  # loopback only, never another address
        yield {
            "key": "testing",
            "secret": "testing",
            "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{port}", "region_name": "us-east-1"},
            # Listings must not be served from a cache while the tests
            # change objects behind the filesystem's back.
            "use_listings_cache": False,
            # A loopback server answers at once; a request stuck behind a
            # killed worker's connection should not wait botocore's 60 s.
            "config_kwargs": {"connect_timeout": 5, "read_timeout": 20},
        }
    finally:
        server.stop()


@pytest.fixture
def s3_bucket(s3_server):
    """A fresh bucket: (name, storage_options)."""
    import uuid

    import s3fs

    fs = s3fs.S3FileSystem(**s3_server)
    name = "aesx-" + uuid.uuid4().hex[:12]
    # us-east-1 takes no LocationConstraint (s3fs's mkdir would send one).
    fs.call_s3("create_bucket", Bucket=name)
    return name, s3_server
