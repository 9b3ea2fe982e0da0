package io.weft.examples.avionics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.weft.config.TransportKind;
import io.weft.testkit.TestGroups;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dashboard serves its page's state while strangers hold connections with requests they never finish: it read
 * every request on one thread, and one such connection held the page of everyone else until it closed.
 */
@Timeout(60)
class DashboardTest
{
    @Test
    void unfinishedRequestsOfStrangersDoNotHoldThePage() throws Exception
    {
        final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        final long start = System.nanoTime();
        final DashboardModel model = new DashboardModel(TestGroups.builder(TransportKind.SHM, 1).build(), registry,
            new Timeline(start, registry), start);
        final List<Socket> strangers = new ArrayList<>();
        try (Dashboard dashboard = Dashboard.start(0, model, registry);
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build())
        {
            for (int i = 0; i < 8; i++)
            {
                final Socket s = new Socket(InetAddress.getLoopbackAddress(), dashboard.port());
                strangers.add(s);
                final OutputStream out = s.getOutputStream();
                out.write("GET /api/state HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII)); // no end
                out.flush();
            }
            final HttpResponse<String> state = get(client, dashboard, "/api/state");
            assertEquals(200, state.statusCode());
            assertTrue(state.body().startsWith("{\"member\":0,"), state.body());
            assertEquals(404, get(client, dashboard, "/nope").statusCode());
            assertEquals(405, client.send(HttpRequest.newBuilder(uri(dashboard, "/")).timeout(Duration.ofSeconds(5))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString())
                .statusCode());
        }
        finally
        {
            for (final Socket s : strangers)
            {
                s.close();
            }
        }
    }

    private static HttpResponse<String> get(final HttpClient client, final Dashboard dashboard, final String path)
        throws Exception
    {
        // 5 s: the page polls once a second, and waited as long as the stranger held the connection
        return client.send(HttpRequest.newBuilder(uri(dashboard, path)).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(final Dashboard dashboard, final String path)
    {
        return URI.create("http://127.0.0.1:" + dashboard.port() + path);
    }
}
