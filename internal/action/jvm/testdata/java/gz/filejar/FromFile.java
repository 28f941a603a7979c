package gz.filejar;

/** A class that the java action tests find on the class path. */
public class FromFile {
    public static String value() {
        return "from-file-jar";
    }
}
