package io.weft.examples.kv;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;

import java.io.ByteArrayOutputStream;

/**
 * The bytes a script's library function builds ({@code string.gsub}, {@code table.concat}), refused past
 * {@code longest}, as {@code string.rep}'s result: a command's longest argument.
 */
final class BoundedOutput
{
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final long longest;
    private final String function;

    BoundedOutput(final long longest, final String function)
    {
        this.longest = longest;
        this.function = function;
    }

    void add(final byte b)
    {
        bytes.write(b);
        check();
    }

    void add(final LuaString s)
    {
        bytes.write(s.m_bytes, s.m_offset, s.m_length);
        check();
    }

    LuaString string()
    {
        return LuaString.valueOf(bytes.toByteArray());
    }

    private void check()
    {
        if (bytes.size() > longest)
        {
            throw new LuaError(function + ": a result past " + longest + " bytes");
        }
    }
}
