// What the site's scripts use of Material for MkDocs: its documented document$ observable, which emits
// the document once loaded and again after each instant navigation.
interface MaterialSubscription {
  unsubscribe(): void;
}
interface MaterialObservable<T> {
  subscribe(next: (value: T) => void): MaterialSubscription;
}
interface Window {
  document$: MaterialObservable<Document>;
}
declare var document$: MaterialObservable<Document>;
