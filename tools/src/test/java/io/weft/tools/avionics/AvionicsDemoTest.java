package io.weft.tools.avionics;

import io.weft.testkit.Await;
import io.weft.tools.Weft;
import io.weft.testkit.MemberProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code ./weft avionics} end to end, watched in a real browser: the demo's checks pass (exit 0), and the
 * dashboard served by the recorder, opened in headless Chromium, draws charts that grow with every poll and shows the
 * view change after display 1 is killed. Saves a screenshot of that moment to {@code target/avionics-dashboard.png}
 * (and to {@code -Dweft.screenshot=FILE}).
 */
@Timeout(240)
class AvionicsDemoTest
{
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    @TempDir
    Path dir;

    @Test
    void theDemoPassesItsChecksAndTheDashboardShowsTheViewChange() throws Exception
    {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
            "needs the Debian packages chromium and chromium-driver (.ci/run installs them)");
        // the browser first: the scenario runs on its own clock, and on a busy host a browser started after the
        // dashboard came up found the flight over and the dashboard gone (ERR_CONNECTION_REFUSED, CI 2026-12-01)
        // the browser's temporary files under the test's directory: its singleton socket's directory stayed in /tmp
        // after each run (org.chromium.Chromium.*)
        final ChromeDriverService service = new ChromeDriverService.Builder()
            .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
            .withEnvironment(Map.of("TMPDIR", Files.createDirectories(dir.resolve("tmp")).toString())).build();
        final ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile())
            .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1500,1100");
        final ChromeDriver browser = new ChromeDriver(service, options);
        try (MemberProcess demo = MemberProcess.start("avionics", dir, Weft.class, "avionics", "--phase", "4s",
            "--hold", "6s", "--dir", dir.resolve("run").toString()))
        {
            // the dashboard's port is the recorder's own pick (a port chosen here and passed on was free when chosen,
            // not when the recorder bound it: "Address already in use", CI 2026-12-07)
            demo.awaitOutput("avionics: steady flight; the dashboard is at", Duration.ofSeconds(90));
            final Matcher at = Pattern.compile("the dashboard is at (http://127\\.0\\.0\\.1:\\d+/)")
                .matcher(demo.output());
            assertTrue(at.find(), demo.output());
            final String url = at.group(1);
            assertPrometheusScrape(url);
            browser.get(url);
            final JavascriptExecutor js = browser;
            awaitTrue(() -> number(js, "return window.weftDashboard.updates") >= 2, Duration.ofSeconds(20),
                "the page never rendered a state");
            final long before = number(js, "return Chart.getChart('rate-chart').data.datasets[0].data.length");
            awaitTrue(() -> number(js, "return Chart.getChart('rate-chart').data.datasets[0].data.length") >=
                before + 2, Duration.ofSeconds(20), "the rate chart did not grow");
            assertEquals(4L, number(js, "return Chart.getChart('rate-chart').data.datasets.length"),
                "one rate line per topic");
            assertTrue(browser.findElement(By.id("view-id")).getText().startsWith("view "));

            demo.awaitOutput("avionics: kill -9 display 1", Duration.ofSeconds(60));
            awaitTrue(() -> browser.findElement(By.id("timeline")).getText().contains("failed 1"),
                Duration.ofSeconds(30), "the timeline never showed display 1's failure");
            awaitTrue(() -> number(js, "return window.weftDashboard.timeline.filter(e => e.failed.includes(1))" +
                ".length") == 1, Duration.ofSeconds(10), "the page's state has no view without display 1");
            assertEquals(1L, number(js, "return window.weftDashboard.timeline.filter(e => e.failed.includes(1)" +
                " && e.pausedMillis > 0).length"), "the failure's view does not say how long the multicast " +
                "stopped: " + browser.findElement(By.id("timeline")).getText());
            assertTrue(browser.findElement(By.id("timeline")).getText().contains("multicast paused"),
                browser.findElement(By.id("timeline")).getText());
            screenshot(browser);
            assertMembershipScrape(url);
            final String chips = browser.findElement(By.id("members")).getText();
            assertTrue(!chips.contains("display-1") || browser.findElement(By.id("timeline")).getText()
                .contains("joined 1"), "the failed display is still shown as a member: " + chips);
            browser.quit(); // before the flight ends, as a viewer leaves (again in finally: a no-op then)
            assertEquals(0, demo.awaitExit(Duration.ofSeconds(150)), demo.output());
            assertTrue(demo.output().contains("avionics: OK: every display saw the same flight-plan sequence"),
                demo.output());
        }
        finally
        {
            browser.quit();
        }
    }

    private static void assertPrometheusScrape(final String url) throws Exception
    {
        final HttpResponse<String> metrics = get(url + "metrics");
        assertEquals(200, metrics.statusCode());
        for (final String meter : List.of("weft_dds_samples_delivered_total{", "weft_smc_batch_delivery_messages_total{",
            "weft_dds_durability_lag{", "avionics_latency_seconds{"))
        {
            assertTrue(metrics.body().contains(meter), meter + " missing from the scrape:\n" + metrics.body());
        }
        assertEquals(404, get(url + "nothing-here").statusCode());
    }

    private static HttpResponse<String> get(final String url) throws Exception
    {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    /** The recorder's membership meters saw the kill: a view removed a member as failed, and a timed view change. */
    private static void assertMembershipScrape(final String url) throws Exception
    {
        final String body = get(url + "metrics").body();
        assertTrue(scraped(body, "weft_membership_failed_total") >= 1, body);
        assertTrue(scraped(body, "weft_membership_view_change_seconds_count") >= 1, body);
        assertTrue(scraped(body, "weft_membership_view") >= 1, body);
    }

    /** The value of the one series of {@code name} in a Prometheus scrape. */
    private static double scraped(final String body, final String name)
    {
        final Matcher m = Pattern.compile("^" + name + "\\{[^}]*} (\\S+)$", Pattern.MULTILINE).matcher(body);
        assertTrue(m.find(), name + " missing from the scrape");
        return Double.parseDouble(m.group(1));
    }

    private static void screenshot(final ChromeDriver browser) throws Exception
    {
        final byte[] png = browser.getScreenshotAs(OutputType.BYTES);
        Files.write(Path.of("target", "avionics-dashboard.png"), png);
        final String extra = System.getProperty("weft.screenshot");
        if (extra != null)
        {
            Files.write(Path.of(extra), png);
        }
    }

    private static long number(final JavascriptExecutor js, final String script)
    {
        final Object v = js.executeScript(script);
        return v instanceof Number n ? n.longValue() : -1;
    }

    /** Polls the page at most five times a second: each poll runs a script in the browser. */
    private static void awaitTrue(final BooleanSupplier condition, final Duration timeout, final String failure)
    {
        Await.until(condition, timeout, Duration.ofMillis(200), () -> failure);
    }
}
