package io.weft.examples.avionics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executors;

/**
 * The live dashboard of one member, on loopback: the page ({@code /}), its script and Chart.js (from the WebJar on
 * the class path), the state it polls ({@code /api/state}, JSON) and a Prometheus scrape of every meter
 * ({@code /metrics}). The JDK's HTTP server, a virtual thread per exchange.
 */
final class Dashboard implements AutoCloseable
{
    private static final String CHART_JS = "/chart.umd.min.js";
    private static final Map<String, String> PAGES = Map.of("/", "dashboard.html", "/dashboard.js", "dashboard.js",
        "/dashboard.css", "dashboard.css");

    private final HttpServer server;
    private final DashboardModel model;
    private final PrometheusMeterRegistry registry;
    private final ObjectMapper json = new ObjectMapper();
    private final byte[] chartJs;
    private final Map<String, byte[]> pages = new java.util.HashMap<>(); // read once: they do not change

    private Dashboard(final HttpServer server, final DashboardModel model, final PrometheusMeterRegistry registry)
    {
        this.server = server;
        this.model = model;
        this.registry = registry;
        this.chartJs = chartJs();
        PAGES.forEach((path, name) -> pages.put(path, resource(Dashboard.class, name)));
    }

    /** Serves on 127.0.0.1:{@code port} ({@code 0}: any free port; see {@link #port()}). */
    static Dashboard start(final int port, final DashboardModel model, final PrometheusMeterRegistry registry)
        throws IOException
    {
        final HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        final Dashboard dashboard = new Dashboard(server, model, registry);
        server.createContext("/", dashboard::handle);
        // a thread per exchange: the server reads a request's headers on its exchange's thread, and one client
        // that never finished a request held the only thread, and the page of everyone else
        server.setExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("dashboard-http-", 0)
            .factory()));
        server.start();
        return dashboard;
    }

    int port()
    {
        return server.getAddress().getPort();
    }

    private void handle(final HttpExchange exchange) throws IOException
    {
        try (exchange)
        {
            try
            {
                route(exchange);
            }
            catch (final RuntimeException ex) // a broken page must not end the member: answer 500 and go on
            {
                send(exchange, 500, "text/plain", (ex + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
    }

    private void route(final HttpExchange exchange) throws IOException
    {
        final String path = exchange.getRequestURI().getPath();
        if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod()))
        {
            send(exchange, 405, "text/plain",
                ("only GET, not " + exchange.getRequestMethod() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        else if ("/api/state".equals(path))
        {
            send(exchange, 200, "application/json", json.writeValueAsBytes(model.state()));
        }
        else if ("/metrics".equals(path))
        {
            send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8",
                registry.scrape().getBytes(StandardCharsets.UTF_8));
        }
        else if (CHART_JS.equals(path))
        {
            send(exchange, 200, "text/javascript", chartJs);
        }
        else if (PAGES.containsKey(path))
        {
            send(exchange, 200, contentType(PAGES.get(path)), pages.get(path));
        }
        else
        {
            send(exchange, 404, "text/plain", ("no page " + path + "\n").getBytes(StandardCharsets.UTF_8));
        }
    }

    private static String contentType(final String name)
    {
        return name.endsWith(".html") ? "text/html; charset=utf-8" :
            name.endsWith(".css") ? "text/css" : "text/javascript";
    }

    private static void send(final HttpExchange exchange, final int status, final String type, final byte[] body)
        throws IOException
    {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        final boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : body.length == 0 ? -1 : body.length);
        if (!head && body.length > 0)
        {
            exchange.getResponseBody().write(body);
        }
    }

    /** Chart.js from its WebJar, whose version the WebJar's pom.properties names. */
    private static byte[] chartJs()
    {
        final Properties pom = new Properties();
        try (InputStream in =
            Dashboard.class.getResourceAsStream("/META-INF/maven/org.webjars.npm/chart.js/pom.properties"))
        {
            if (in == null)
            {
                throw new IllegalStateException("the Chart.js WebJar (org.webjars.npm:chart.js) is not on the class " +
                    "path");
            }
            pom.load(in);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return resource(Dashboard.class, "/META-INF/resources/webjars/chart.js/" + pom.getProperty("version") +
            "/dist/chart.umd.min.js");
    }

    private static byte[] resource(final Class<?> near, final String name)
    {
        try (InputStream in = near.getResourceAsStream(name))
        {
            if (in == null)
            {
                throw new IllegalStateException("resource " + name + " is missing from the class path");
            }
            return in.readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close()
    {
        server.stop(0);
    }
}
