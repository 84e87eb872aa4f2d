package dev.allot.schemas.catalogue;

import com.microsoft.kiota.RequestInformation;
import io.apicurio.registry.resolver.client.RegistryClientFacade;
import io.apicurio.registry.resolver.client.RegistryClientFacadeImpl;
import io.apicurio.registry.rest.client.RegistryClient;
import io.kiota.http.jdk.JDKRequestAdapter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The serializer's calls to the registry (schema registrations and lookups), each bounded in time and tried
 * again when unanswered. Why: Apicurio's JDK adapter sends with no timeout and streams the body from an
 * {@code InputStream} (chunked), and a registration once never came back: a node agent's thread was parked for
 * good in {@code HttpClient.send} on 2026-12-07 (the registry logged no such request; both sides of the
 * connection idle), as the scheduler's loop had been on a Vert.x client in 2026-12-06's chaos run. That thread's
 * jobs stayed RUNNING and their node's GPUs taken for ever. Here the body is a byte array (a fixed length), and a
 * call that times out or fails on its connection is sent again: both calls the serializer makes are safe to
 * repeat (a lookup, and a registration {@code ifExists=FIND_OR_CREATE_VERSION}). Apicurio's own cache retries
 * only a 429.
 */
final class RegistryHttp {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    static final int ATTEMPTS = 3;

    private RegistryHttp() {
    }

    /** The registry client a serializer resolves its schemas with, at {@code apiUrl} (the v3 API). */
    static RegistryClientFacade facade(String apiUrl, Duration timeout, int attempts) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT).build();
        JDKRequestAdapter adapter = new BoundedAdapter(new Retrying(http, attempts), timeout);
        adapter.setBaseUrl(apiUrl);
        return new RegistryClientFacadeImpl(new RegistryClient(adapter));
    }

    /** Kiota's JDK adapter with every request given a timeout and a byte-array body. */
    private static final class BoundedAdapter extends JDKRequestAdapter {
        private final Duration timeout;

        BoundedAdapter(HttpClient http, Duration timeout) {
            super(http);
            this.timeout = timeout;
        }

        @Override
        public HttpRequest convertToNativeRequest(RequestInformation information) {
            byte[] body;
            try {
                body = information.content == null ? null : information.content.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            HttpRequest streamed = super.convertToNativeRequest(information);
            return HttpRequest.newBuilder(streamed, (name, value) -> true)
                    .method(streamed.method(), body == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofByteArray(body))
                    .timeout(timeout)
                    .build();
        }
    }

    /** A client whose blocking {@code send} is tried up to {@code attempts} times on a timeout or an I/O failure. */
    private static final class Retrying extends HttpClient {
        private final HttpClient delegate;
        private final int attempts;

        Retrying(HttpClient delegate, int attempts) {
            this.delegate = delegate;
            this.attempts = attempts;
        }

        @Override
        public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
                throws IOException, InterruptedException {
            for (int attempt = 1; ; attempt++) {
                try {
                    return delegate.send(request, handler);
                } catch (IOException e) { // HttpTimeoutException among them
                    if (attempt >= attempts) {
                        throw e;
                    }
                    System.getLogger(RegistryHttp.class.getName()).log(System.Logger.Level.WARNING,
                            "schema registry call " + request.method() + " " + request.uri() + " failed (attempt "
                                    + attempt + " of " + attempts + "): " + e + "; sending it again");
                }
            }
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
                                                                HttpResponse.BodyHandler<T> handler) {
            return delegate.sendAsync(request, handler);
        }

        @Override
        public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
                                                                HttpResponse.PushPromiseHandler<T> push) {
            return delegate.sendAsync(request, handler, push);
        }

        @Override
        public Optional<CookieHandler> cookieHandler() {
            return delegate.cookieHandler();
        }

        @Override
        public Optional<Duration> connectTimeout() {
            return delegate.connectTimeout();
        }

        @Override
        public Redirect followRedirects() {
            return delegate.followRedirects();
        }

        @Override
        public Optional<ProxySelector> proxy() {
            return delegate.proxy();
        }

        @Override
        public SSLContext sslContext() {
            return delegate.sslContext();
        }

        @Override
        public SSLParameters sslParameters() {
            return delegate.sslParameters();
        }

        @Override
        public Optional<Authenticator> authenticator() {
            return delegate.authenticator();
        }

        @Override
        public Version version() {
            return delegate.version();
        }

        @Override
        public Optional<Executor> executor() {
            return delegate.executor();
        }
    }
}
