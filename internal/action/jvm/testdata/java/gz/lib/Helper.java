package gz.lib;

/** A class that the java action tests find on the class path. */
public class Helper {
    public static String value() {
        return "from-lib";
    }
}
