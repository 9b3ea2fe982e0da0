package io.weft.config;

import java.util.regex.Pattern;

/**
 * Options of the rdma transport's verbs backend.
 *
 * @param library  the libibverbs shared library to load: a name on the loader's path or an absolute path (a vendor's
 *                 rdma-core under /opt, say).
 * @param device   RDMA device name as {@code ibv_devices} lists it; empty for the first device.
 * @param port     device port, 1 .. 255.
 * @param gidIndex GID table index for RoCE and routed InfiniBand (GRH), 0 .. 255; RoCE v2 is usually 1 or 3
 *                 ({@code show_gids} tells).
 */
public record VerbsOptions(String library, String device, int port, int gidIndex)
{
    private static final Pattern DEVICE = Pattern.compile("[A-Za-z0-9_.-]{0,64}");
    public static final VerbsOptions DEFAULTS = new VerbsOptions("libibverbs.so.1", "", 1, 0);

    /** Refuses a value out of range with a {@link WeftConfigException} naming its configuration key. */
    public VerbsOptions
    {
        WeftConfigException.check(library != null && !library.isBlank(), "weft.transport.rdma.verbs.library", library,
            "must name a shared library, such as libibverbs.so.1");
        WeftConfigException.check(device != null && DEVICE.matcher(device).matches(),
            "weft.transport.rdma.verbs.device", device, "must be an RDMA device name such as mlx5_0, or empty for " +
                "the first");
        WeftConfigException.check(port >= 1 && port <= 255, "weft.transport.rdma.verbs.port", port, "must be 1 .. 255");
        WeftConfigException.check(gidIndex >= 0 && gidIndex <= 255, "weft.transport.rdma.verbs.gid-index", gidIndex,
            "must be 0 .. 255");
    }
}
