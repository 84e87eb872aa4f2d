package dev.allot.e2e;

import com.microsoft.playwright.Browser;
import com.microsoft.playwright.BrowserContext;
import com.microsoft.playwright.BrowserType;
import com.microsoft.playwright.Page;
import com.microsoft.playwright.Playwright;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A real browser (Debian's chromium, driven by Playwright; no browser download) on the budget-service's
 * /ui pages. The one place tests get access to the service: {@link #credentials()} gives the headers
 * every page request and every API call of a test carries (none today; a login adds its bearer token here).
 */
final class DashboardBrowser implements AutoCloseable {

    static final Path SCREENSHOTS = Path.of("target/screenshots");

    private final Playwright playwright;
    private final Browser browser;
    private final BrowserContext context;
    private final String baseUrl;

    DashboardBrowser(String baseUrl) {
        this.baseUrl = baseUrl;
        this.playwright = Playwright.create(new Playwright.CreateOptions()
                .setEnv(Map.of("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")));
        this.browser = playwright.chromium().launch(new BrowserType.LaunchOptions().setHeadless(true)
                .setExecutablePath(chromium())
                // root in a container has no user namespace for the sandbox
                .setArgs(List.of("--no-sandbox", "--disable-dev-shm-usage")));
        this.context = browser.newContext(new Browser.NewContextOptions().setBaseURL(baseUrl)
                .setViewportSize(1280, 900).setExtraHTTPHeaders(credentials()));
    }

    /** Headers that authenticate a request: an admin's bearer token (the dashboard reads, any user may). */
    static Map<String, String> credentials() {
        return Map.of("Authorization", dev.allot.testsupport.TestTokens.bearer("dashboard-viewer",
                dev.allot.testsupport.TestTokens.ADMIN_GROUP));
    }

    /** Debian's chromium binary (the /usr/bin/chromium wrapper script adds flags Playwright does not expect). */
    static Path chromium() {
        String configured = System.getenv("ALLOT_CHROMIUM");
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured);
        }
        for (String candidate : List.of("/usr/lib/chromium/chromium", "/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return Path.of(candidate);
            }
        }
        throw new IllegalStateException("no chromium found: apt-get install chromium (.ci/run does it), or set ALLOT_CHROMIUM");
    }

    Page open(String path) {
        Page page = context.newPage();
        page.navigate(baseUrl + path);
        return page;
    }

    /** A full-page screenshot kept as a test artifact under target/screenshots. */
    static void screenshot(Page page, String name) {
        page.screenshot(new Page.ScreenshotOptions().setFullPage(true).setPath(SCREENSHOTS.resolve(name + ".png")));
    }

    @Override
    public void close() {
        context.close();
        browser.close();
        playwright.close();
    }
}
