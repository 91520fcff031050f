import HTTPKit
import Store
