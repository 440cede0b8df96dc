import { directoryGroupsSuite } from "./directory-groups.suite";

directoryGroupsSuite("sqlite");
